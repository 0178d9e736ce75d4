//! Time: the clock, `formatTime` (glibc's `strftime` in UTC) and `interval`.

use super::*;

/// The injected time, or the system clock's (seconds since the Unix epoch).
pub(crate) fn clock(injected: Option<i64>) -> i64 {
    injected.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    })
}

/// `interval(s)`: `[d+]h:mm:ss`, dropping leading zero fields, on `s` narrowed to a C `int`
/// as HTCondor does (so `interval(2^32 + 5)` is `"5"`).
pub(super) fn interval(secs: i64) -> String {
    // Truncation to 32 bits is HTCondor's (`IsIntegerValue(int&)`).
    let t = secs as i32;
    let (days, rest) = (t / 86_400, t % 86_400);
    let (hours, rest) = (rest / 3600, rest % 3600);
    let (minutes, seconds) = (rest / 60, rest % 60);
    let (h, m, s) = (hours.abs(), minutes.abs(), seconds.abs());
    if days != 0 {
        format!("{days}+{h:02}:{m:02}:{s:02}")
    } else if hours != 0 {
        format!("{hours}:{m:02}:{s:02}")
    } else if minutes != 0 {
        format!("{minutes}:{s:02}")
    } else {
        format!("{seconds}")
    }
}

/// Days since 1970-01-01 to a civil (year, month 1–12, day 1–31) date (Howard Hinnant's
/// algorithm).
pub(super) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a civil date (month 1–12), the inverse of [`civil_from_days`].
pub(super) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A broken-down time as C's `struct tm` holds it. The fields of a split-time ad may be out
/// of range (day 0, month 13); `strftime` prints them as they are, as glibc does.
pub(super) struct Tm {
    /// The full year (`tm_year + 1900`).
    year: i64,
    /// Months since January.
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    /// Days since Sunday.
    wday: i64,
    /// Days since January 1.
    yday: i64,
}

impl Tm {
    /// `gmtime(t)`, or `None` when the year does not fit C's `int` (glibc fails there).
    fn utc(t: i64) -> Option<Tm> {
        let days = t.div_euclid(86_400);
        let secs = t.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        i32::try_from(year - 1900).ok()?;
        Some(Tm {
            year,
            mon: month - 1,
            mday: day,
            hour: secs / 3600,
            min: secs / 60 % 60,
            sec: secs % 60,
            wday: (days + 4).rem_euclid(7), // 1970-01-01 was a Thursday
            yday: days - days_from_civil(year, 1, 1),
        })
    }

    /// The fields of a split-time ad (`Year`, `Month` 1–12, `Day`, `Hours`, `Minutes`,
    /// `Seconds`; `struct tm`'s zero where one is missing: year 1900, January, day 0),
    /// unnormalised, with the weekday and day of the year from HTCondor's `day_numbers` (C
    /// `int` arithmetic: a weekday before year 1 is negative, printed `?`).
    fn from_fields(fields: [Option<i32>; 6]) -> Tm {
        let [year, month, day, hours, minutes, seconds] = fields;
        let (year, month) = (year.unwrap_or(1900), month.unwrap_or(1));
        let [day, hours, minutes, seconds] = [day, hours, minutes, seconds].map(|f| f.unwrap_or(0));
        let fixed = |y: i32, m: i32, d: i32| {
            let leap = y % 4 == 0 && ![100, 200, 300].contains(&(y % 400));
            let adjust = if m <= 2 {
                0
            } else if leap {
                -1
            } else {
                -2
            };
            let p = y.wrapping_sub(1);
            365i32
                .wrapping_mul(p)
                .wrapping_add(p / 4)
                .wrapping_sub(p / 100)
                .wrapping_add(p / 400)
                .wrapping_add(367i32.wrapping_mul(m).wrapping_sub(362) / 12)
                .wrapping_add(adjust)
                .wrapping_add(d)
        };
        let today = fixed(year, month, day);
        Tm {
            year: i64::from(year.wrapping_sub(1900)) + 1900,
            mon: i64::from(month.wrapping_sub(1)),
            mday: i64::from(day),
            hour: i64::from(hours),
            min: i64::from(minutes),
            sec: i64::from(seconds),
            wday: i64::from(today % 7),
            yday: i64::from(today.wrapping_sub(fixed(year, 1, 1))),
        }
    }

    /// `mktime` in UTC: the seconds since the epoch the fields name once normalised.
    fn timestamp(&self) -> i64 {
        let months = self.year * 12 + self.mon;
        let days = days_from_civil(months.div_euclid(12), months.rem_euclid(12) + 1, 1);
        (days + self.mday - 1) * 86_400 + self.hour * 3600 + self.min * 60 + self.sec
    }
}

pub(super) const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
pub(super) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `formatTime(t [, fmt])` of a time in seconds: C's `strftime` in the C locale in UTC;
/// `error` past the years C's `int` holds.
pub(super) fn format_time(t: i64, format: &str) -> Value {
    match Tm::utc(t) {
        Some(tm) => Value::Str(strftime(&tm, format).into()),
        None => Value::Error,
    }
}

/// `formatTime(ad [, fmt])`: the fields of a split-time ad (HTCondor reads each with
/// `EvaluateAttrInt`; `None` when absent or not an integer), printed unnormalised.
pub(crate) fn format_split_time(fields: [Option<i32>; 6], format: Option<&Value>) -> Value {
    match format {
        None => Value::Str(strftime(&Tm::from_fields(fields), "%c").into()),
        Some(Value::Str(f)) => Value::Str(strftime(&Tm::from_fields(fields), f).into()),
        Some(_) => Value::Error,
    }
}

/// The attributes of a split-time ad [`format_split_time`] reads, in its field order.
pub(crate) const SPLIT_TIME_FIELDS: [&str; 6] =
    ["Year", "Month", "Day", "Hours", "Minutes", "Seconds"];

/// glibc's `strftime` in the C locale: out-of-range names print `?`, numbers print as they
/// are (zero- or space-padded to their width, the sign counted), and an unknown conversion
/// is copied as it stands.
pub(super) fn strftime(tm: &Tm, format: &str) -> String {
    let name = |names: &'static [&'static str], i: i64, short: bool| -> &'static str {
        match usize::try_from(i).ok().and_then(|i| names.get(i)) {
            Some(n) if short => &n[..3],
            Some(n) => n,
            None => "?",
        }
    };
    let hour12 = match tm.hour {
        h if h > 12 => h - 12,
        0 => 12,
        h => h,
    };
    let (year, mday) = (tm.year, tm.mday);
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            out.push('%');
            break;
        };
        let piece = match spec {
            '%' => "%".to_owned(),
            'a' => name(&WEEKDAYS, tm.wday, true).to_owned(),
            'A' => name(&WEEKDAYS, tm.wday, false).to_owned(),
            'b' | 'h' => name(&MONTHS, tm.mon, true).to_owned(),
            'B' => name(&MONTHS, tm.mon, false).to_owned(),
            'c' => strftime(tm, "%a %b %e %H:%M:%S %Y"),
            'C' => format!("{:02}", year.div_euclid(100)),
            'd' => format!("{mday:02}"),
            'D' | 'x' => strftime(tm, "%m/%d/%y"),
            'e' => format!("{mday:>2}"),
            'F' => format!("{year}-{:02}-{mday:02}", tm.mon + 1),
            'H' => format!("{:02}", tm.hour),
            'I' => format!("{hour12:02}"),
            'j' => format!("{:03}", tm.yday + 1),
            'k' => format!("{:>2}", tm.hour),
            'l' => format!("{hour12:>2}"),
            'm' => format!("{:02}", tm.mon + 1),
            'M' => format!("{:02}", tm.min),
            'n' => "\n".to_owned(),
            'p' => (if tm.hour > 11 { "PM" } else { "AM" }).to_owned(),
            'P' => (if tm.hour > 11 { "pm" } else { "am" }).to_owned(),
            'r' => strftime(tm, "%I:%M:%S %p"),
            'R' => strftime(tm, "%H:%M"),
            's' => tm.timestamp().to_string(),
            'S' => format!("{:02}", tm.sec),
            't' => "\t".to_owned(),
            'T' | 'X' => strftime(tm, "%H:%M:%S"),
            'u' => (if tm.wday == 0 { 7 } else { tm.wday }).to_string(),
            'U' => format!("{:02}", (tm.yday - tm.wday + 7).div_euclid(7)),
            'W' => format!(
                "{:02}",
                (tm.yday - (tm.wday - 1).rem_euclid(7) + 7).div_euclid(7)
            ),
            'w' => tm.wday.to_string(),
            'y' => format!("{:02}", year.rem_euclid(100)),
            'Y' => year.to_string(),
            'z' => "+0000".to_owned(),
            'Z' => "UTC".to_owned(),
            other => format!("%{other}"),
        };
        out.push_str(&piece);
    }
    out
}
