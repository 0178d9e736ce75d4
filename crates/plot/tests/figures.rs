//! Figures as a reader sees them: no legend over the data, the same look for a name in every
//! figure, small SVGs for large inputs, and PNGs that decode.

use cosched_plot::{BarChart, Figure, Gantt, Geometry, LinePlot};

/// The legend sits outside the plotting area and no drawn point falls inside it.
fn assert_legend_clear(name: &str, g: &Geometry) {
    let plot = g.plot.expect("a plotting area");
    let legend = g.legend.expect("a legend");
    assert!(
        !legend.overlaps(&plot),
        "{name}: legend {legend:?} over plot {plot:?}"
    );
    assert!(!g.points.is_empty(), "{name}: nothing drawn");
    for p in &g.points {
        assert!(
            !legend.contains(*p),
            "{name}: point {p:?} under the legend {legend:?}"
        );
        assert!(
            plot.contains(*p),
            "{name}: point {p:?} outside the plot {plot:?}"
        );
    }
}

fn svg_geometry(figure: &impl Figure) -> Geometry {
    figure.geometry().expect("draws")
}

#[test]
fn no_legend_covers_a_point() {
    // Data in every corner, where legends used to go, and a long series name.
    let corners = [(0.0, 0.0), (0.0, 100.0), (1.0, 100.0), (1.0, 0.0)];
    let line = LinePlot::new("corners", "Corners")
        .x_label("x")
        .y_label("y")
        .series("a policy with a rather long name indeed", corners)
        .series("easy", corners.iter().map(|&(x, y)| (x, 100.0 - y)))
        .series_with_intervals("fcfs", [(0.5, 50.0, Some(40.0)), (0.7, 60.0, None)]);
    assert_legend_clear("line", &svg_geometry(&line));

    let many = (0..40).fold(
        LinePlot::new("many", "Forty series").log_x().auto_log_y(),
        |plot, k| {
            plot.series(
                format!("series {k}"),
                (1..200).map(|i| (f64::from(i), f64::from(i * (k + 1)))),
            )
        },
    );
    assert_legend_clear("many", &svg_geometry(&many));

    let bars = BarChart::new("bars", "Bars", ["a", "b", "c"])
        .y_label("value")
        .series("easy", [10.0, 100.0, 30.0])
        .series("fcfs", [100.0, 5.0, 100.0])
        .reference("paper", 100.0);
    assert_legend_clear("bars", &svg_geometry(&bars));
}

#[test]
fn one_name_looks_the_same_in_every_figure() {
    let a = LinePlot::new("a", "A")
        .series("fcfs", [(0.0, 1.0), (1.0, 2.0)])
        .series("easy", [(0.0, 1.0), (1.0, 3.0)]);
    let b = LinePlot::new("b", "B")
        .series("easy", [(0.0, 5.0), (1.0, 3.0)])
        .series("sjf+easy", [(0.0, 2.0), (1.0, 1.0)]);
    // The colour of `easy`'s line in each SVG (Okabe–Ito vermillion).
    for svg in [a.render_svg().unwrap(), b.render_svg().unwrap()] {
        assert!(svg.contains("#D55E00"), "easy is vermillion");
        assert!(!svg.to_uppercase().contains("#F0E442"), "no yellow");
    }
}

#[test]
fn a_large_cdf_stays_small_and_png_decodes() {
    // A step CDF of 200,000 waits spread over five decades.
    let n = 200_000;
    let points: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let w = 10f64.powf(5.0 * f64::from(i) / f64::from(n));
            (w, f64::from(i + 1) / f64::from(n))
        })
        .collect();
    let plot = LinePlot::new("cdf", "Wait CDF")
        .log_x()
        .series("easy", points.iter().copied())
        .series("fcfs", points.iter().map(|&(w, f)| (w * 3.0, f)));
    let svg = plot.render_svg().unwrap();
    assert!(svg.len() < 150_000, "{} bytes", svg.len());
    let png = plot.render_png().unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert_eq!((info.width, info.height), cosched_plot::SIZE);
}

#[test]
fn ticks_are_integers_and_a_gantt_says_what_it_leaves_out() {
    let plot = LinePlot::new("t", "Ticks").series("easy", [(0.0, 0.0), (2000.0, 4000.0)]);
    let svg = plot.render_svg().unwrap();
    // plotters writes a text element's content on a line of its own.
    let texts: Vec<&str> = svg.lines().filter(|l| !l.starts_with('<')).collect();
    assert!(texts.contains(&"2000"), "integer ticks: {texts:?}");
    assert!(
        !texts.iter().any(|t| t.ends_with(".0")),
        "no `.0` on integer ticks: {texts:?}"
    );
    let gantt = Gantt::new("g", "Schedule", 0.0..10.0, 0.0..8.0)
        .note("3 of 7 jobs shown")
        .block(1, -5.0, 5.0, 0.0, 4.0)
        .block(2, 20.0, 30.0, 0.0, 4.0);
    let svg = gantt.render_svg().unwrap();
    assert!(svg.contains("3 of 7 jobs shown"));
    // The second block lies outside the window: one job rectangle (plus frame and background).
    assert_eq!(
        svg.matches("<rect").count(),
        gantt_rects_without_blocks() + 1
    );
}

fn gantt_rects_without_blocks() -> usize {
    Gantt::new("g", "Schedule", 0.0..10.0, 0.0..8.0)
        .note("3 of 7 jobs shown")
        .render_svg()
        .unwrap()
        .matches("<rect")
        .count()
}

#[test]
fn plots_survive_degenerate_data() {
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let lines = [
        LinePlot::new("none", "no series"),
        LinePlot::new("empty", "empty series").series("empty", []),
        LinePlot::new("one", "single point").series("one", [(1.0, 2.0)]),
        LinePlot::new("flat", "identical values").series("flat", [(3.0, 5.0), (3.0, 5.0)]),
        LinePlot::new("zero", "all zero").series("zero", [(0.0, 0.0), (0.0, 0.0)]),
        LinePlot::new("nan", "NaN and inf").series("nan", [(nan, 1.0), (1.0, nan), (inf, 2.0)]),
        LinePlot::new("mixed", "NaN among values")
            .series("mixed", [(0.0, 1.0), (nan, nan), (2.0, 3.0)]),
        LinePlot::new("logzero", "log with non-positive values")
            .log_y()
            .series("logzero", [(0.0, 0.0), (1.0, -1.0), (2.0, 100.0)]),
        LinePlot::new("lognone", "log with nothing positive")
            .log_y()
            .series("lognone", [(0.0, 0.0)]),
    ];
    for plot in &lines {
        let svg = plot
            .render_svg()
            .unwrap_or_else(|e| panic!("{}: {e}", plot.file_stem()));
        assert!(svg.starts_with("<svg"), "{}", plot.file_stem());
        plot.render_png()
            .unwrap_or_else(|e| panic!("{}: {e}", plot.file_stem()));
    }
    let bars = [
        BarChart::new("nobars", "no categories", Vec::<String>::new()),
        BarChart::new("noseries", "no series", ["a"]),
        BarChart::new("zeros", "zeros", ["a", "b"]).series("z", [0.0, 0.0]),
        BarChart::new("negative", "negative", ["a", "b"]).series("n", [-1.0, -3.0]),
        BarChart::new("nans", "NaNs", ["a", "b"]).series("n", [nan, inf]),
    ];
    for chart in &bars {
        let svg = chart
            .render_svg()
            .unwrap_or_else(|e| panic!("{}: {e}", chart.file_stem()));
        assert!(svg.starts_with("<svg"), "{}", chart.file_stem());
    }
}

#[test]
fn plots_are_deterministic() {
    let plot = || {
        LinePlot::new("wait_vs_load", "Mean wait against load")
            .series("EASY backfilling", [(0.5, 10.0), (0.7, 40.0), (0.9, 300.0)])
            .series("FCFS", [(0.5, 30.0), (0.7, 200.0), (0.9, 4000.0)])
    };
    assert_eq!(plot().render_svg().unwrap(), plot().render_svg().unwrap());
    assert_eq!(plot().render_png().unwrap(), plot().render_png().unwrap());
}

#[test]
fn a_log_axis_clips_an_interval_crossing_zero_and_says_so() {
    let plot = |half: f64| {
        LinePlot::new("clipped", "Clipped")
            .y_label("wait (s)")
            .log_y()
            .series_with_intervals("easy", [(0.6, 100.0, Some(half)), (0.9, 10_000.0, None)])
    };
    let crossing = plot(150.0);
    let g = svg_geometry(&crossing);
    let area = g.plot.expect("a plotting area");
    // The bar runs down to the axis (the plot's bottom edge), not just to the point.
    let lowest = g.points.iter().map(|p| p.1).max().expect("points");
    assert!(
        (area.bottom - 2..=area.bottom).contains(&lowest),
        "lowest point {lowest}, axis at {}",
        area.bottom
    );
    let svg = crossing.render_svg().expect("renders");
    assert!(svg.contains("clipped"), "the note names the clipping");
    // An interval above 0 keeps its cap and no note.
    let inside = plot(50.0);
    let g = svg_geometry(&inside);
    let area = g.plot.expect("a plotting area");
    assert!(g.points.iter().all(|p| p.1 < area.bottom - 2));
    assert!(!inside.render_svg().expect("renders").contains("clipped"));
    // A linear axis draws the whole interval, below 0 included.
    let linear = LinePlot::new("linear", "Linear")
        .series_with_intervals("easy", [(0.6, 100.0, Some(150.0)), (0.9, 10_000.0, None)]);
    assert!(!linear.render_svg().expect("renders").contains("clipped"));
}
