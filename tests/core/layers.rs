//! The module structure, checked: each top-level module of `src/` imports
//! only from the layers below it, nothing outside `src/plugin/` names a
//! Bevy crate, and no source file is over 500 lines (test modules aside).
//! The layers, lowest first (see `docs/DESIGN.md`):
//!
//! ```text
//! math < geometry < shape, io < bvh < bounds < collider
//!      < broad_phase, query < narrow_phase < pipeline < character < plugin
//! ```
//!
//! `testkit` (test support) may use everything; only test code uses it.

use std::path::{Path, PathBuf};

/// Layer of each top-level module; a module may import from lower layers.
const LAYERS: &[(&str, u32)] = &[
    ("math", 0),
    ("geometry", 1),
    ("shape", 2),
    ("io", 2),
    ("bvh", 3),
    ("bounds", 4),
    ("collider", 5),
    ("broad_phase", 6),
    ("query", 6),
    ("narrow_phase", 7),
    ("pipeline", 8),
    ("character", 9),
    ("plugin", 10),
    ("testkit", 11),
];

const MAX_LINES: usize = 500;

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// A source file: its top-level module and its code without the trailing
/// `#[cfg(test)]` module and comment lines.
struct Source {
    path: PathBuf,
    module: String,
    code: String,
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let rel = path.strip_prefix(root).expect("under src");
        let is_test = rel
            .with_extension("")
            .components()
            .any(|c| c.as_os_str().to_string_lossy().ends_with("tests"));
        if path.is_dir() {
            if !is_test {
                sources(&path, root, out);
            }
            continue;
        }
        if is_test || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let first = rel.components().next().expect("a component");
        let module = Path::new(first.as_os_str())
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).expect("readable file");
        out.push(Source {
            path,
            module,
            code: code_part(&text),
        });
    }
}

/// The code without the trailing `#[cfg(test)]` module and comment lines.
fn code_part(text: &str) -> String {
    let text = text.find("#[cfg(test)]").map_or(text, |i| &text[..i]);
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules named by `crate::<module>` paths in `code`.
fn imports(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Every import from a layer that is not below the importer's.
fn upward_imports(files: &[Source]) -> Vec<String> {
    let mut bad = Vec::new();
    for f in files {
        let Some(own) = layer(&f.module) else {
            continue; // lib.rs
        };
        for m in imports(&f.code) {
            match layer(&m) {
                Some(l) if m != f.module && l >= own => bad.push(format!(
                    "{} ({}, layer {own}) imports crate::{m} (layer {l})",
                    f.path.display(),
                    f.module
                )),
                _ => {}
            }
        }
    }
    bad
}

fn all_sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    files
}

#[test]
fn no_module_imports_a_higher_layer() {
    let files = all_sources();
    assert!(files.len() > 40, "src/ was read");
    for f in &files {
        if f.module != "lib" {
            assert!(
                layer(&f.module).is_some(),
                "{}: module {} has no layer",
                f.path.display(),
                f.module
            );
        }
    }
    let bad = upward_imports(&files);
    assert!(
        bad.is_empty(),
        "imports against the layers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_finds_an_upward_import() {
    let fake = |module: &str, code: &str| Source {
        path: PathBuf::from(format!("src/{module}/x.rs")),
        module: module.into(),
        code: code_part(code),
    };
    let files = [
        fake(
            "geometry",
            "use crate::math::Pose;\nuse crate::collider::SharedShape;",
        ),
        fake("broad_phase", "use crate::query::test_pair;"),
        fake(
            "pipeline",
            "// use crate::plugin::X;\nuse crate::narrow_phase::N;",
        ),
        fake(
            "shape",
            "use crate::math::Aabb;\n#[cfg(test)]\nmod tests { use crate::testkit::Rng; }",
        ),
    ];
    let bad = upward_imports(&files);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad[0].contains("crate::collider") && bad[1].contains("crate::query"));
}

#[test]
fn only_the_plugin_names_bevy() {
    for f in all_sources() {
        if f.module == "plugin" {
            continue;
        }
        let names_bevy = f.code.lines().any(|l| {
            let l = l.trim_start();
            l.contains("bevy_ecs")
                || l.contains("bevy_app")
                || l.contains("bevy_tasks")
                || l.contains("bevy_transform")
                || l.contains("bevy_math")
        });
        assert!(
            !names_bevy || f.module == "lib",
            "{} names a Bevy crate outside src/plugin/",
            f.path.display()
        );
    }
}

#[test]
fn no_source_file_is_over_500_lines() {
    let long: Vec<String> = all_sources()
        .iter()
        .filter(|f| f.code.lines().count() > MAX_LINES)
        .map(|f| format!("{}: {} lines", f.path.display(), f.code.lines().count()))
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}
