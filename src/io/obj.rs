//! A small, strict-but-forgiving Wavefront OBJ reader for triangle meshes.
//!
//! Only vertex positions (`v`) and faces (`f`) are kept; polygons are
//! fan-triangulated. Texture coordinates, normals, groups, materials, lines and
//! points are ignored. Unknown statements (and the non-standard vertex/face
//! count line that FCL's test models start with) are skipped and reported in
//! [`ObjMesh::warnings`]; malformed data is an [`ObjError`] naming the line.
//!
//! Supported syntax: `v x y z [w] [r g b]`, `f` with `v`, `v/vt`, `v//vn` and
//! `v/vt/vn` references, negative (relative) indices, `#` comments (also at
//! the end of a line), `\r\n` line endings, tabs, trailing whitespace and
//! lines continued with a trailing backslash. Face indices must refer to
//! vertices defined earlier in the file.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use glam::Vec3;

/// Why an OBJ file could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjError {
    /// I/O error reading the file (message).
    Io(String),
    /// Line `line` (1-based) could not be parsed: what was wrong.
    Parse {
        /// 1-based line number (the first line of a backslash-continued statement).
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// A face refers to vertex `index` (as written in the file) which does not exist.
    BadIndex {
        /// 1-based line number of the face.
        line: usize,
        /// The index as written (1-based, or negative for relative).
        index: i64,
    },
    /// The file has no vertices or no faces.
    Empty,
}

impl fmt::Display for ObjError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(message) => write!(f, "OBJ: cannot read file: {message}"),
            Self::Parse { line, message } => write!(f, "OBJ line {line}: {message}"),
            Self::BadIndex { line, index } => write!(
                f,
                "OBJ line {line}: face refers to vertex {index}, which does not exist"
            ),
            Self::Empty => write!(f, "OBJ: the file has no vertices or no faces"),
        }
    }
}

impl std::error::Error for ObjError {}

/// Vertex positions and triangles (fan-triangulated polygons), indices into `positions`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjMesh {
    /// Vertex positions in file order (every `v` record, duplicates kept).
    pub positions: Vec<Vec3>,
    /// Triangles as 0-based indices into `positions`; degenerate ones are kept.
    pub triangles: Vec<[u32; 3]>,
    /// Lines skipped with a reason (e.g. the FCL count line), for the caller to log.
    pub warnings: Vec<String>,
}

/// At most this many warnings are stored; the rest are counted in a final summary line.
const MAX_WARNINGS: usize = 64;

/// Longest excerpt of a token quoted in a message.
const MAX_QUOTE: usize = 40;

/// Parses OBJ text into positions and fan-triangulated faces.
pub fn parse_obj(text: &str) -> Result<ObjMesh, ObjError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut parser = Parser::default();
    for (line, content) in LogicalLines::new(text) {
        parser.statement(line, &content)?;
    }
    parser.finish()
}

/// Reads and parses an OBJ file. Invalid UTF-8 is replaced (with a warning), not rejected.
pub fn load_obj(path: impl AsRef<Path>) -> Result<ObjMesh, ObjError> {
    let path = path.as_ref();
    let bytes =
        std::fs::read(path).map_err(|e| ObjError::Io(format!("{}: {e}", path.display())))?;
    match std::str::from_utf8(&bytes) {
        Ok(text) => parse_obj(text),
        Err(_) => {
            let mut mesh = parse_obj(&String::from_utf8_lossy(&bytes))?;
            let note = "file is not valid UTF-8; invalid bytes were replaced".to_string();
            mesh.warnings.insert(0, note);
            Ok(mesh)
        }
    }
}

/// Shorthand for [`ObjError::Parse`].
fn parse_error(line: usize, message: impl Into<String>) -> ObjError {
    ObjError::Parse {
        line,
        message: message.into(),
    }
}

/// A token shortened to at most [`MAX_QUOTE`] characters, for messages.
fn quote(token: &str) -> Cow<'_, str> {
    match token.char_indices().nth(MAX_QUOTE) {
        Some((end, _)) => Cow::Owned(format!("{}...", &token[..end])),
        None => Cow::Borrowed(token),
    }
}

/// The part of a line before any `#` comment.
fn strip_comment(line: &str) -> &str {
    line.find('#').map_or(line, |at| &line[..at])
}

/// Iterator over logical lines: `(1-based number of the first physical line, text)`,
/// with trailing whitespace (including `\r`) removed and backslash continuations joined.
struct LogicalLines<'a> {
    lines: std::iter::Enumerate<std::str::Split<'a, char>>,
}

impl<'a> LogicalLines<'a> {
    /// Splits `text` on `\n`.
    fn new(text: &'a str) -> Self {
        Self {
            lines: text.split('\n').enumerate(),
        }
    }
}

impl<'a> Iterator for LogicalLines<'a> {
    type Item = (usize, Cow<'a, str>);

    fn next(&mut self) -> Option<Self::Item> {
        let (index, first) = self.lines.next()?;
        let mut current = first.trim_end();
        if !current.ends_with('\\') {
            return Some((index + 1, Cow::Borrowed(current)));
        }
        let mut joined = String::new();
        while let Some(head) = current.strip_suffix('\\') {
            joined.push_str(head);
            joined.push(' ');
            current = self.lines.next().map_or("", |(_, next)| next.trim_end());
        }
        joined.push_str(current);
        Some((index + 1, Cow::Owned(joined)))
    }
}

/// Resolves a 1-based (or negative, relative) OBJ index against `count` vertices.
fn resolve_index(line: usize, index: i64, count: usize) -> Result<u32, ObjError> {
    let count = i64::try_from(count).unwrap_or(i64::MAX);
    let zero_based = if index > 0 { index - 1 } else { count + index };
    if index == 0 || zero_based < 0 || zero_based >= count {
        return Err(ObjError::BadIndex { line, index });
    }
    u32::try_from(zero_based).map_err(|_| parse_error(line, "vertex index does not fit in u32"))
}

/// Parses one finite coordinate.
fn parse_coord(line: usize, token: &str) -> Result<f32, ObjError> {
    let value: f32 = token
        .parse()
        .map_err(|_| parse_error(line, format!("`{}` is not a number", quote(token))))?;
    if !value.is_finite() {
        let message = format!("coordinate `{}` is not a finite f32", quote(token));
        return Err(parse_error(line, message));
    }
    Ok(value)
}

/// Parses a face vertex reference (`v`, `v/vt`, `v//vn`, `v/vt/vn`) and returns
/// the position index as written.
fn parse_face_ref(line: usize, token: &str) -> Result<i64, ObjError> {
    let bad = || parse_error(line, format!("bad face vertex `{}`", quote(token)));
    let mut parts = token.split('/');
    let index = parts
        .next()
        .unwrap_or("")
        .parse::<i64>()
        .map_err(|_| bad())?;
    for (k, part) in parts.enumerate() {
        if k >= 2 || !(part.is_empty() || part.parse::<i64>().is_ok()) {
            return Err(bad());
        }
    }
    Ok(index)
}

/// Whether `text` is exactly two non-negative integers; returns them.
fn count_line(text: &str) -> Option<(u64, u64)> {
    let mut tokens = text.split_whitespace();
    let vertices = tokens.next()?.parse().ok()?;
    let faces = tokens.next()?.parse().ok()?;
    tokens.next().is_none().then_some((vertices, faces))
}

/// Parsing state.
#[derive(Default)]
struct Parser {
    mesh: ObjMesh,
    /// Whether a non-blank, non-comment statement has been seen.
    started: bool,
    /// The FCL count line `(vertices, faces)`, if the file started with one.
    counts: Option<(u64, u64)>,
    /// Number of `f` statements.
    faces: u64,
    /// Warnings beyond [`MAX_WARNINGS`].
    suppressed: usize,
    /// Reused buffer of resolved face indices.
    face: Vec<u32>,
}

impl Parser {
    /// Handles one logical line.
    fn statement(&mut self, line: usize, text: &str) -> Result<(), ObjError> {
        let content = strip_comment(text);
        let mut tokens = content.split_whitespace();
        let Some(keyword) = tokens.next() else {
            return Ok(());
        };
        let first = !std::mem::replace(&mut self.started, true);
        match keyword {
            "v" => self.vertex(line, tokens),
            "f" => self.face(line, tokens),
            "vt" | "vn" | "vp" | "g" | "o" | "s" | "usemtl" | "mtllib" | "l" | "p" => Ok(()),
            _ if first && self.count_line(line, content) => Ok(()),
            _ => {
                self.warn(format!(
                    "line {line}: unknown statement `{}` skipped",
                    quote(keyword)
                ));
                Ok(())
            }
        }
    }

    /// Records the FCL count line if `content` is one; returns whether it was.
    fn count_line(&mut self, line: usize, content: &str) -> bool {
        let Some((vertices, faces)) = count_line(content) else {
            return false;
        };
        self.counts = Some((vertices, faces));
        self.warn(format!(
            "line {line}: skipped non-standard count line `{vertices} {faces}` (vertices, faces)"
        ));
        true
    }

    /// Parses `v x y z [w] [...]`; anything after `z` is ignored.
    fn vertex<'t>(
        &mut self,
        line: usize,
        mut tokens: impl Iterator<Item = &'t str>,
    ) -> Result<(), ObjError> {
        let mut xyz = [0.0f32; 3];
        for (axis, slot) in ["x", "y", "z"].into_iter().zip(&mut xyz) {
            let token = tokens
                .next()
                .ok_or_else(|| parse_error(line, format!("vertex has no {axis} coordinate")))?;
            *slot = parse_coord(line, token)?;
        }
        self.mesh.positions.push(Vec3::from_array(xyz));
        Ok(())
    }

    /// Parses `f a b c ...` and appends its fan triangulation.
    fn face<'t>(
        &mut self,
        line: usize,
        tokens: impl Iterator<Item = &'t str>,
    ) -> Result<(), ObjError> {
        self.face.clear();
        for token in tokens {
            let index = parse_face_ref(line, token)?;
            let resolved = resolve_index(line, index, self.mesh.positions.len())?;
            self.face.push(resolved);
        }
        let Some((&first, rest)) = self.face.split_first().filter(|(_, r)| r.len() >= 2) else {
            let message = format!("face has {} vertices, needs at least 3", self.face.len());
            return Err(parse_error(line, message));
        };
        let fan = rest.windows(2).map(|pair| [first, pair[0], pair[1]]);
        self.mesh.triangles.extend(fan);
        self.faces += 1;
        Ok(())
    }

    /// Stores a warning, or counts it once [`MAX_WARNINGS`] are stored.
    fn warn(&mut self, message: String) {
        if self.mesh.warnings.len() < MAX_WARNINGS {
            self.mesh.warnings.push(message);
        } else {
            self.suppressed += 1;
        }
    }

    /// Final checks: count line consistency, emptiness, warning summary.
    fn finish(mut self) -> Result<ObjMesh, ObjError> {
        if let Some((vertices, faces)) = self.counts {
            let found = (self.mesh.positions.len() as u64, self.faces);
            if found != (vertices, faces) {
                self.warn(format!(
                    "count line says {vertices} vertices and {faces} faces, file has {} and {}",
                    found.0, found.1
                ));
            }
        }
        if self.mesh.positions.is_empty() || self.mesh.triangles.is_empty() {
            return Err(ObjError::Empty);
        }
        if self.suppressed > 0 {
            let summary = format!("... and {} more warnings", self.suppressed);
            self.mesh.warnings.push(summary);
        }
        Ok(self.mesh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRI: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    const QUAD: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

    fn parse(text: &str) -> ObjMesh {
        match parse_obj(text) {
            Ok(mesh) => mesh,
            Err(e) => panic!("{e}\n--- input ---\n{text}"),
        }
    }

    #[test]
    fn plain_triangle() {
        let mesh = parse(&format!("{TRI}f 1 2 3\n"));
        assert_eq!(mesh.positions[1], Vec3::X);
        assert_eq!(mesh.triangles, vec![[0, 1, 2]]);
        assert!(mesh.warnings.is_empty());
    }

    #[test]
    fn all_face_forms() {
        let extra = "vt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n";
        for face in [
            "f 1 2 3",
            "f 1/1 2/2 3/3",
            "f 1//1 2//1 3//1",
            "f 1/1/1 2/2/1 3/3/1",
            "f 1/1 2//1 3",
        ] {
            let mesh = parse(&format!("{TRI}{extra}{face}\n"));
            assert_eq!(mesh.triangles, vec![[0, 1, 2]], "{face}");
        }
    }

    #[test]
    fn negative_indices() {
        let mesh = parse(&format!("{TRI}f -3 -2 -1\nv 5 5 5\nf -4 -1 -2\n"));
        assert_eq!(mesh.triangles, vec![[0, 1, 2], [0, 3, 2]]);
        let mesh = parse(&format!("{TRI}f -3/-3/-1 -2//-1 -1/-1\n"));
        assert_eq!(mesh.triangles, vec![[0, 1, 2]]);
    }

    #[test]
    fn quad_and_ngon_fan() {
        let mesh = parse(&format!("{QUAD}f 1 2 3 4\n"));
        assert_eq!(mesh.triangles, vec![[0, 1, 2], [0, 2, 3]]);
        let ngon = "v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 2 0\nv -1 1 0\nf 1 2 3 4 5 6\n";
        let mesh = parse(ngon);
        let fan: Vec<[u32; 3]> = (1..5).map(|i| [0, i, i + 1]).collect();
        assert_eq!(mesh.triangles, fan);
    }

    #[test]
    fn vertex_w_and_colors_ignored() {
        let mesh = parse("v 1 2 3 1.0\nv 4 5 6 0.1 0.2 0.3\nv 7 8 9 1 0.5 0.5 0.5\nf 1 2 3\n");
        let expected = [
            Vec3::new(1., 2., 3.),
            Vec3::new(4., 5., 6.),
            Vec3::new(7., 8., 9.),
        ];
        assert_eq!(mesh.positions, expected);
    }

    #[test]
    fn number_formats() {
        let mesh = parse("v +1.5 -2e-3 .25\nv 1. 1E2 -0\nv 3 4 5\nf 1 2 3\n");
        assert_eq!(mesh.positions[0], Vec3::new(1.5, -0.002, 0.25));
        assert_eq!(mesh.positions[1], Vec3::new(1.0, 100.0, 0.0));
    }

    #[test]
    fn comments_and_ignored_statements() {
        let text = "# header\nmtllib a.mtl\no obj\ng grp\ns off\nusemtl red\n\
                    v 0 0 0 # inline\nv 1 0 0\nv 0 1 0\nvp 0.5\nl 1 2\np 1\n\
                    #f 9 9 9\nf 1 2 3 # done\n   # indented comment\n";
        let mesh = parse(text);
        assert_eq!(mesh.positions.len(), 3);
        assert_eq!(mesh.triangles, vec![[0, 1, 2]]);
        assert!(mesh.warnings.is_empty(), "{:?}", mesh.warnings);
    }

    #[test]
    fn whitespace_crlf_tabs_continuation() {
        let text = "\u{feff}v\t0 0 0  \r\nv 1\t0 0\t\r\n\r\n  v 0 1 0\r\nf 1 \\\r\n  2 \\\n 3\r\n";
        let mesh = parse(text);
        assert_eq!(mesh.positions.len(), 3);
        assert_eq!(mesh.triangles, vec![[0, 1, 2]]);
        assert!(mesh.warnings.is_empty(), "{:?}", mesh.warnings);
        // No trailing newline, backslash at end of file.
        let mesh = parse(&format!("{TRI}f 1 2 3 \\"));
        assert_eq!(mesh.triangles.len(), 1);
    }

    #[test]
    fn continuation_keeps_first_line_number() {
        let err = parse_obj(&format!("{TRI}f 1 \\\n 2 \\\n 9\nf 1 2 3\n"));
        assert_eq!(err, Err(ObjError::BadIndex { line: 4, index: 9 }));
        let err = parse_obj(&format!("{TRI}f 1 \\\n 2 \\\n 3\nf 1 2 0\n"));
        assert_eq!(err, Err(ObjError::BadIndex { line: 7, index: 0 }));
    }

    #[test]
    fn degenerate_triangles_kept() {
        let mesh = parse(&format!("{TRI}f 1 1 2\nf 3 3 3\n"));
        assert_eq!(mesh.triangles, vec![[0, 0, 1], [2, 2, 2]]);
    }

    #[test]
    fn bad_index_errors() {
        let cases = [
            ("f 1 2 4", 4),
            ("f 0 1 2", 0),
            ("f 1 2 -4", -4),
            ("f 1/1 2 7//1", 7),
        ];
        for (face, index) in cases {
            let err = parse_obj(&format!("{TRI}\n{face}\n"));
            assert_eq!(err, Err(ObjError::BadIndex { line: 5, index }), "{face}");
        }
        // Forward references are rejected: vertices must come first.
        let err = parse_obj("f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n");
        assert_eq!(err, Err(ObjError::BadIndex { line: 1, index: 1 }));
        let huge = parse_obj(&format!("{TRI}f 1 2 -9223372036854775808\n"));
        let index = i64::MIN;
        assert_eq!(huge, Err(ObjError::BadIndex { line: 4, index }));
        let message = ObjError::BadIndex { line: 5, index: 4 }.to_string();
        assert!(
            message.contains("line 5") && message.contains('4'),
            "{message}"
        );
    }

    fn parse_error_line(text: &str) -> (usize, String) {
        match parse_obj(text) {
            Err(ObjError::Parse { line, message }) => (line, message),
            other => panic!("expected a parse error for {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn non_finite_coordinates() {
        for bad in ["nan", "NaN", "inf", "-inf", "infinity", "1e39"] {
            let (line, message) = parse_error_line(&format!("v 0 0 0\nv 1 {bad} 0\n"));
            assert_eq!(line, 2, "{bad}");
            assert!(message.contains("finite"), "{message}");
        }
        let err = parse_obj("v 0 0 0\nv 0 nan 0\n").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn malformed_vertices() {
        assert_eq!(parse_error_line("v 1 2\n").0, 1);
        assert_eq!(parse_error_line("v\n").0, 1);
        assert_eq!(parse_error_line("v 1 2 x\n").0, 1);
        assert_eq!(parse_error_line("v 1,5 2 3\n").0, 1);
    }

    #[test]
    fn short_and_malformed_faces() {
        for face in ["f 1 2", "f 1", "f", "f # 1 2 3"] {
            let (line, message) = parse_error_line(&format!("{TRI}{face}\n"));
            assert_eq!(line, 4, "{face}");
            assert!(message.contains("at least 3"), "{message}");
        }
        for face in [
            "f 1 2 x",
            "f 1/2/3/4 2 3",
            "f 1 2 /3",
            "f 1 2 3/a",
            "f 1.0 2 3",
        ] {
            let (line, message) = parse_error_line(&format!("{TRI}{face}\n"));
            assert_eq!(line, 4, "{face}");
            assert!(message.contains("bad face vertex"), "{message}");
        }
    }

    #[test]
    fn empty_files() {
        for text in ["", "\n\n", "# only a comment\n", TRI, "o x\nf 1 2 3\n"] {
            let result = parse_obj(text);
            let expected = if text == "o x\nf 1 2 3\n" {
                Err(ObjError::BadIndex { line: 2, index: 1 })
            } else {
                Err(ObjError::Empty)
            };
            assert_eq!(result, expected, "{text:?}");
        }
        assert_eq!(parse_obj("v 0 0 0\nl 1 1\n"), Err(ObjError::Empty));
    }

    #[test]
    fn fcl_count_line_is_a_warning() {
        let mesh = parse(&format!("3 1\r\n{TRI}f 1 2 3\n"));
        assert_eq!(mesh.triangles.len(), 1);
        assert_eq!(mesh.warnings.len(), 1);
        assert!(mesh.warnings[0].contains("line 1"), "{:?}", mesh.warnings);
        assert!(
            mesh.warnings[0].contains("count line"),
            "{:?}",
            mesh.warnings
        );
        // After comments it still counts as leading; a mismatch adds a warning.
        let mesh = parse(&format!("# fcl\n\n 9 9 \n{TRI}f 1 2 3\n"));
        assert!(mesh.warnings[0].contains("line 3"), "{:?}", mesh.warnings);
        assert!(
            mesh.warnings[1].contains("9 vertices"),
            "{:?}",
            mesh.warnings
        );
    }

    #[test]
    fn unknown_statements_are_warnings() {
        let mesh = parse(&format!("{TRI}cstype bspline\n3 1\nf 1 2 3\nfoo\n"));
        assert_eq!(mesh.triangles.len(), 1);
        assert_eq!(mesh.warnings.len(), 3, "{:?}", mesh.warnings);
        assert!(mesh.warnings[0].contains("line 4") && mesh.warnings[0].contains("cstype"));
        assert!(mesh.warnings[1].contains("line 5"), "{:?}", mesh.warnings);
        // Three numbers at the top is not a count line.
        let mesh = parse(&format!("1 2 3\n{TRI}f 1 2 3\n"));
        assert!(mesh.warnings[0].contains("unknown statement `1`"));
    }

    #[test]
    fn warnings_are_capped() {
        let junk = "junk\n".repeat(1000);
        let mesh = parse(&format!("{junk}{TRI}f 1 2 3\n"));
        assert_eq!(mesh.warnings.len(), MAX_WARNINGS + 1);
        let last = mesh.warnings.last().map_or("", String::as_str);
        assert!(
            last.contains(&format!("{} more", 1000 - MAX_WARNINGS)),
            "{last}"
        );
    }

    #[test]
    fn long_tokens_are_quoted_short() {
        let long = "é".repeat(500);
        let (_, message) = parse_error_line(&format!("v 1 2 {long}\n"));
        assert!(message.len() < 200, "{message}");
        let mesh = parse(&format!("{long}\n{TRI}f 1 2 3\n"));
        assert!(mesh.warnings[0].len() < 200);
    }

    #[test]
    fn error_display_names_the_line() {
        let parse = ObjError::Parse {
            line: 12,
            message: "oops".into(),
        };
        assert_eq!(parse.to_string(), "OBJ line 12: oops");
        assert!(ObjError::Empty.to_string().contains("no vertices"));
        let io = load_obj("/definitely/not/here.obj").unwrap_err();
        assert!(
            matches!(&io, ObjError::Io(m) if m.contains("not/here.obj")),
            "{io}"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(io);
        assert!(boxed.to_string().contains("cannot read"));
    }

    use crate::testkit::Rng;

    /// Checks the invariants of any successful parse.
    fn check_invariants(text: &str) {
        if let Ok(mesh) = parse_obj(text) {
            let n = mesh.positions.len();
            assert!(n > 0 && !mesh.triangles.is_empty(), "{text:?}");
            assert!(mesh.positions.iter().all(|p| p.is_finite()), "{text:?}");
            let ok = mesh.triangles.iter().flatten().all(|&i| (i as usize) < n);
            assert!(ok, "{text:?}");
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..5000 {
            let len = rng.below(300);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            check_invariants(&String::from_utf8_lossy(&bytes));
        }
    }

    /// A random, roughly OBJ-shaped line: a keyword then a few arguments,
    /// mostly valid, sometimes not.
    fn soup_line(rng: &mut Rng) -> String {
        const KEYWORDS: &[&str] = &["v", "v", "v", "f", "f", "vt", "o", "#", "3 1", "x", ""];
        const GOOD: &[&str] = &[
            "1", "2", "3", "-1", "-2", "-3", "1.5", "1/1/1", "2//2", "3/3",
        ];
        const BAD: &[&str] = &[
            "0",
            "4",
            "nan",
            "inf",
            "1e39",
            "99999999999999999999",
            "-9223372036854775808",
            "/",
            "//",
            "x",
            "é",
            "\\",
            "#",
            "\u{feff}",
        ];
        const SEPARATORS: &[&str] = &[" ", " ", " ", "\t", "  ", "\r", "\\\n"];
        let mut line = KEYWORDS[rng.below(KEYWORDS.len())].to_string();
        for _ in 0..2 + rng.below(4) {
            line.push_str(SEPARATORS[rng.below(SEPARATORS.len())]);
            let pool = if rng.below(10) == 0 { BAD } else { GOOD };
            line.push_str(pool[rng.below(pool.len())]);
        }
        line.push_str(if rng.below(4) == 0 { "\r\n" } else { "\n" });
        line
    }

    #[test]
    fn random_token_soup_never_panics() {
        let mut rng = Rng::new(42);
        let mut successes = 0;
        for _ in 0..20000 {
            let lines = rng.below(8);
            let mut text = if rng.below(2) == 0 {
                TRI.to_string()
            } else {
                String::new()
            };
            text.extend((0..lines).map(|_| soup_line(&mut rng)));
            check_invariants(&text);
            successes += usize::from(parse_obj(&text).is_ok());
        }
        assert!(successes > 100, "only {successes} soups gave a valid mesh");
    }

    /// The crate's copy of the test models (a subset of the shared set).
    fn mesh_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/meshes")
    }

    /// One row of the SOURCES.md table.
    #[derive(Debug)]
    struct Expected {
        vertices: usize,
        distinct: Option<usize>,
        triangles: usize,
        bbox: [f32; 3],
    }

    /// Parses a leading integer such as `6540 (2072)` -> (6540, Some(2072)).
    fn counts(cell: &str) -> (usize, Option<usize>) {
        let mut numbers = cell
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<usize>().expect("count"));
        (numbers.next().expect("a count"), numbers.next())
    }

    /// Reads the `| file | ... | V | T | BBox |` rows of SOURCES.md.
    fn sources_table(dir: &Path) -> std::collections::HashMap<String, Expected> {
        let text = std::fs::read_to_string(dir.join("SOURCES.md")).expect("SOURCES.md");
        let mut table = std::collections::HashMap::new();
        for line in text.lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells[1].trim_matches('`');
            if !name.ends_with(".obj") {
                continue;
            }
            let (vertices, distinct) = counts(cells[6]);
            let (triangles, _) = counts(cells[7]);
            let extent: Vec<f32> = cells[8]
                .split('×')
                .map(|s| s.trim().parse().expect("bbox"))
                .collect();
            let bbox = [extent[0], extent[1], extent[2]];
            let row = Expected {
                vertices,
                distinct,
                triangles,
                bbox,
            };
            table.insert(name.to_string(), row);
        }
        table
    }

    /// Checks one loaded model against its table row.
    fn check_model(name: &str, mesh: &ObjMesh, expected: &Expected) {
        assert_eq!(mesh.positions.len(), expected.vertices, "{name}: vertices");
        assert_eq!(
            mesh.triangles.len(),
            expected.triangles,
            "{name}: triangles"
        );
        if let Some(distinct) = expected.distinct {
            let set: std::collections::HashSet<[u32; 3]> = mesh
                .positions
                .iter()
                .map(|p| p.to_array().map(f32::to_bits))
                .collect();
            assert_eq!(set.len(), distinct, "{name}: distinct positions");
        }
        let lo = mesh.positions.iter().fold(Vec3::INFINITY, |a, &p| a.min(p));
        let hi = mesh
            .positions
            .iter()
            .fold(Vec3::NEG_INFINITY, |a, &p| a.max(p));
        let extent = (hi - lo).to_array();
        for (axis, (got, want)) in extent.iter().zip(expected.bbox).enumerate() {
            let ok = (got - want).abs() <= 1e-3 * want.abs();
            assert!(ok, "{name}: bbox axis {axis}: got {got}, table says {want}");
        }
    }

    #[test]
    fn real_models_match_sources_table() {
        let dir = mesh_dir();
        let table = sources_table(&dir);
        let mut loaded = 0;
        for entry in std::fs::read_dir(&dir).expect("mesh dir") {
            let path = entry.expect("dir entry").path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if !name.ends_with(".obj") {
                continue;
            }
            let mesh = load_obj(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let expected = table
                .get(name)
                .unwrap_or_else(|| panic!("{name} not in SOURCES.md"));
            // (The folder holds a subset of the table's files.)
            check_model(name, &mesh, expected);
            let fcl = name.starts_with("fcl_");
            assert_eq!(
                mesh.warnings.len(),
                usize::from(fcl),
                "{name}: {:?}",
                mesh.warnings
            );
            loaded += 1;
        }
        assert!(
            loaded >= 14,
            "the test models are in assets/meshes ({loaded})"
        );
    }

    #[test]
    fn real_models_hard_coded_counts() {
        // (file, V, T) as read from SOURCES.md, so a table edit cannot hide a regression.
        let expected = [
            ("odedstein_torus.obj", 2304, 4608),
            ("odedstein_hand_lowres.obj", 810, 1602),
            ("odedstein_wingnut.obj", 3047, 6090),
            ("o3dv_utah_teapot.stl.obj", 4719, 9438),
            ("fcl_env.obj", 6540, 2180),
            ("fcl_rob.obj", 648, 216),
            ("o3dv_solids.obj", 50, 80),
            ("o3dv_solids_tetrahedron.obj", 4, 4),
            ("o3dv_solids_hexahedron.obj", 8, 12),
            ("o3dv_solids_octahedron.obj", 6, 8),
            ("o3dv_solids_dodecahedron.obj", 20, 36),
            ("o3dv_solids_icosahedron.obj", 12, 20),
        ];
        let dir = mesh_dir();
        for (name, vertices, triangles) in expected {
            let mesh = load_obj(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(mesh.positions.len(), vertices, "{name}");
            assert_eq!(mesh.triangles.len(), triangles, "{name}");
        }
        let env = load_obj(dir.join("fcl_env.obj")).expect("fcl_env");
        assert_eq!(env.warnings.len(), 1, "{:?}", env.warnings);
        assert!(env.warnings[0].contains("line 1") && env.warnings[0].contains("6540 2180"));
    }
}
