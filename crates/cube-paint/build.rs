//! Translates the cube's shader (`shaders/cube.wgsl`, the one the wgpu renderer compiles) into
//! GLSL ES 3.00 for WebGL2, once, at build time: the painter then carries four short texts,
//! not a shader translator. Writes `$OUT_DIR/shaders.rs`.

use std::fmt::Write as _;

use naga::back::glsl;
use naga::valid::{Capabilities, ValidationFlags, Validator};

const SHADER: &str = "../../shaders/cube.wgsl";

/// One entry point as GLSL: its text and the names of its uniform blocks. Its vertex inputs
/// keep the WGSL's locations as `layout(location = N)`, which the painter's attribute
/// pointers follow.
fn translate(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    stage: naga::ShaderStage,
    entry_point: &str,
) -> (String, Vec<String>) {
    let mut binding_map = glsl::BindingMap::default();
    binding_map.insert(
        naga::ResourceBinding {
            group: 0,
            binding: 0,
        },
        0,
    );
    // No coordinate adjustment: the painter draws straight to the canvas, y up as in wgpu,
    // and maps wgpu's depth range in the matrix it uploads.
    let options = glsl::Options {
        version: glsl::Version::Embedded {
            version: 300,
            is_webgl: true,
        },
        writer_flags: glsl::WriterFlags::empty(),
        binding_map,
        zero_initialize_workgroup_memory: false,
    };
    let pipeline = glsl::PipelineOptions {
        shader_stage: stage,
        entry_point: entry_point.to_owned(),
        multiview: None,
    };
    let mut text = String::new();
    let mut writer = glsl::Writer::new(
        &mut text,
        module,
        info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .unwrap_or_else(|e| panic!("{entry_point}: {e}"));
    let reflection = writer
        .write()
        .unwrap_or_else(|e| panic!("{entry_point}: {e}"));
    // Inputs naga could not give a location in the text would need binding by name.
    assert!(
        reflection.varying.is_empty(),
        "{entry_point}: inputs without a location: {:?}",
        reflection.varying.keys()
    );
    (text, reflection.uniforms.into_values().collect())
}

fn main() {
    println!("cargo::rerun-if-changed={SHADER}");
    let source = std::fs::read_to_string(SHADER).expect("the cube's shader");
    let module = naga::front::wgsl::parse_str(&source)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
    let info = Validator::new(ValidationFlags::all(), Capabilities::empty())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
    let mut out = String::new();
    for (name, vertex, fragment) in [
        ("BODY", "body_vs", "body_fs"),
        ("STICKER", "sticker_vs", "sticker_fs"),
    ] {
        let (vs, mut blocks) = translate(&module, &info, naga::ShaderStage::Vertex, vertex);
        let (fs, fs_blocks) = translate(&module, &info, naga::ShaderStage::Fragment, fragment);
        blocks.extend(fs_blocks);
        writeln!(
            out,
            "const {name}: Program = Program {{ vertex: {vs:?}, fragment: {fs:?}, \
             blocks: &{blocks:?} }};"
        )
        .expect("a String takes any text");
    }
    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("shaders.rs");
    std::fs::write(path, out).expect("OUT_DIR is writable");
}
