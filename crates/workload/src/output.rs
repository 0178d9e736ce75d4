//! Output files that never destroy what they replace, for every tool that writes results
//! derived from workloads (the `cosched` command, the examples' output directories).
//!
//! - [`Staged`]: an output written to a temporary file beside its target and moved into
//!   place (one `rename`) by [`Staged::commit`], once the whole run has succeeded; dropped
//!   uncommitted, the temporary file is removed and the target keeps its previous contents.
//!   A target that is a symbolic link is replaced where the link points, keeping the link;
//!   a target that is not a regular file (a terminal, `/dev/null`, a pipe) is written
//!   directly, since it cannot be replaced.
//! - [`resolve`] and [`same_file`]: whether two paths name one file, through `.`, `..`,
//!   symbolic links and (on Unix) hard links, so that a tool can refuse an output that is
//!   one of its inputs, or two outputs that are one file, before it opens anything.
//!
//! ```
//! use cosched_workload::output::Staged;
//! use std::io::Write;
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("results.csv");
//! std::fs::write(&path, "previous\n")?;
//! let mut out = Staged::create(&path)?;
//! out.write_all(b"new\n")?;
//! drop(out); // the run failed: the previous results stay
//! assert_eq!(std::fs::read_to_string(&path)?, "previous\n");
//! let mut out = Staged::create(&path)?;
//! out.write_all(b"new\n")?;
//! out.commit()?;
//! assert_eq!(std::fs::read_to_string(&path)?, "new\n");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use tempfile::NamedTempFile;

/// `path` made absolute with `.`, `..` and symbolic links resolved as far as it exists; the
/// part that does not exist yet is normalised lexically.
pub fn resolve(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    let mut exists = true;
    for component in absolute.components() {
        match component {
            Component::CurDir => continue,
            Component::ParentDir if !exists => {
                out.pop();
                continue;
            }
            other => out.push(other),
        }
        if exists {
            match fs::canonicalize(&out) {
                Ok(real) => out = real,
                Err(_) => exists = false,
            }
        }
    }
    out
}

/// Whether `a` and `b` name one file ([`FileIdentity::same`]).
pub fn same_file(a: &Path, b: &Path) -> bool {
    FileIdentity::of(a).same(&FileIdentity::of(b))
}

/// What names a file: its [`resolve`]d path, and (on Unix) the device and inode of an
/// existing one, so hard links are one file too. Computed once per path, so that many paths
/// can be compared (or hashed) cheaply.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    /// The resolved path.
    pub path: PathBuf,
    /// Device and inode of an existing file.
    pub inode: Option<(u64, u64)>,
}

impl FileIdentity {
    /// The identity of `path`.
    pub fn of(path: &Path) -> FileIdentity {
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
        };
        #[cfg(not(unix))]
        let inode = None;
        FileIdentity {
            path: resolve(path),
            inode,
        }
    }

    /// Whether the two are one file: one resolved path, or one existing inode.
    pub fn same(&self, other: &FileIdentity) -> bool {
        self.path == other.path || (self.inode.is_some() && self.inode == other.inode)
    }
}

/// Whether `path` exists and is a regular file (what an output would replace).
pub fn is_regular_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// An output file being written; see the [module documentation](self).
#[derive(Debug)]
pub struct Staged {
    /// The path as the caller gave it (for messages).
    path: PathBuf,
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    /// A temporary file beside the resolved target.
    Temporary {
        file: NamedTempFile,
        target: PathBuf,
    },
    /// A terminal, device or pipe, written as it goes.
    Direct(File),
}

impl Staged {
    /// Starts writing `path`: creates the temporary file beside it now, so that an unwritable
    /// place fails before the work that would fill it. A directory is refused.
    ///
    /// # Errors
    /// The error creating the temporary file (or opening a special file).
    pub fn create(path: impl AsRef<Path>) -> io::Result<Staged> {
        let path = path.as_ref().to_path_buf();
        let target = resolve(&path);
        let sink = match fs::metadata(&target) {
            Ok(m) if m.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "it is a directory",
                ));
            }
            Ok(m) if !m.is_file() => Sink::Direct(OpenOptions::new().write(true).open(&target)?),
            existing => {
                let dir = target.parent().unwrap_or(Path::new("."));
                let name = target
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                let prefix = format!(".{name}.");
                let mut builder = tempfile::Builder::new();
                builder.prefix(&prefix).suffix(".tmp");
                // The new file gets the old one's permissions, or a new file's (umask applies),
                // not a temporary file's owner-only mode.
                match existing {
                    Ok(m) => {
                        builder.permissions(m.permissions());
                    }
                    Err(_) => new_file_permissions(&mut builder),
                }
                Sink::Temporary {
                    file: builder.tempfile_in(dir)?,
                    target,
                }
            }
        };
        Ok(Staged { path, sink })
    }

    /// The path as given to [`Staged::create`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves the written file into place (flushed to disk first, so a crash leaves the old file
    /// or the new one, never a part).
    ///
    /// # Errors
    /// The error syncing or renaming the file.
    pub fn commit(self) -> io::Result<()> {
        match self.sink {
            Sink::Temporary { file, target } => {
                file.as_file().sync_all()?;
                file.persist(&target).map(drop).map_err(|e| e.error)
            }
            Sink::Direct(mut file) => file.flush(),
        }
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Temporary { file, .. } => file.write(buf),
            Sink::Direct(file) => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.sink {
            Sink::Temporary { file, .. } => file.write_all(buf),
            Sink::Direct(file) => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Temporary { file, .. } => file.flush(),
            Sink::Direct(file) => file.flush(),
        }
    }
}

#[cfg(unix)]
fn new_file_permissions(builder: &mut tempfile::Builder<'_, '_>) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(fs::Permissions::from_mode(0o666));
}

#[cfg(not(unix))]
fn new_file_permissions(_: &mut tempfile::Builder<'_, '_>) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_through_dots_and_links_and_name_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let file = d.join("t.swf");
        fs::write(&file, "x").unwrap();
        fs::create_dir(d.join("sub")).unwrap();
        assert!(same_file(&file, &d.join("sub/../t.swf")));
        assert!(same_file(&file, &d.join("./sub/./../t.swf")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&file, d.join("link")).unwrap();
            std::os::unix::fs::symlink(d.join("sub"), d.join("alias")).unwrap();
            assert!(same_file(&file, &d.join("link")));
            assert!(same_file(&d.join("sub/new.csv"), &d.join("alias/new.csv")));
            fs::hard_link(&file, d.join("hard")).unwrap();
            assert!(same_file(&file, &d.join("hard")));
        }
        // Not existing yet: lexically, below what exists.
        assert!(same_file(&d.join("no/x/../y.csv"), &d.join("no/y.csv")));
        assert!(!same_file(&file, &d.join("u.swf")));
        assert!(!same_file(&d.join("a"), &d.join("b")));
    }

    #[test]
    fn a_staged_file_replaces_its_target_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        fs::write(&target, "old").unwrap();
        let mut staged = Staged::create(&target).unwrap();
        staged.write_all(b"new").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "old");
        drop(staged);
        assert_eq!(fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no leftovers");
        let mut staged = Staged::create(&target).unwrap();
        staged.write_all(b"new").unwrap();
        staged.commit().unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert!(Staged::create(dir.path()).is_err(), "a directory");
        assert!(Staged::create(dir.path().join("no/such/x.csv")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_kept_and_special_files_written_directly() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.csv");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut staged = Staged::create(&link).unwrap();
        staged.write_all(b"new").unwrap();
        staged.commit().unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        let mode = fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "the replaced file's permissions are kept");
        let mut null = Staged::create("/dev/null").unwrap();
        null.write_all(b"discarded").unwrap();
        null.commit().unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(
            fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}
