//! CPU time to prepare and submit one frame of the cube (uploads, two instanced draw calls,
//! submission), without waiting for the GPU, which runs in parallel in an app. Also the
//! scene and picking maths alone.
//!
//! `cargo bench -p velha-cube-view --bench frame`

// criterion_group! makes public functions without documentation.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec2;
use velha_cube_view::camera::Camera;
use velha_cube_view::headless::Headless;
use velha_cube_view::mesh::{DRAW_CALLS_PER_FRAME, FrameInput};
use velha_cube_view::picking::{Viewport, pick};
use velha_cube_view::scene::{Spin, stickers};
use velha_rules::{Cube, Level};

fn frame(c: &mut Criterion) {
    println!("draw calls per frame: {DRAW_CALLS_PER_FRAME}");
    let mut headless = Headless::new().expect("an adapter (install mesa-vulkan-drivers)");
    println!("adapter: {}", headless.adapter);
    let cube: Cube = "X.O*.....O*X....O..XO*..X..X.O.......*....O...X..*.... X L2 - x=3 o=2"
        .parse()
        .unwrap();
    let camera = Camera::new(Level::Two);
    let target = headless.target(390, 844);
    let view = target.create_view(&Default::default());
    let spin = Spin {
        turn: "U+".parse().unwrap(),
        progress: 0.3,
    };
    c.bench_function("prepare+submit frame (390x844, turning)", |b| {
        b.iter_custom(|iterations| {
            let mut spent = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                headless.submit(
                    FrameInput {
                        cube: &cube,
                        camera: &camera,
                        spin: Some(spin),
                    },
                    &view,
                    390,
                    844,
                );
                spent += start.elapsed();
                // The GPU (here a CPU) catches up outside the measurement, as a display would.
                headless.wait();
            }
            spent
        })
    });
    c.bench_function("scene: 54 stickers placed", |b| {
        b.iter(|| stickers(&cube, Some(spin)))
    });
    let viewport = Viewport {
        width: 390.0,
        height: 844.0,
    };
    c.bench_function("pick one point", |b| {
        b.iter(|| pick(&camera, viewport, &cube, Vec2::new(180.0, 400.0)))
    });
}

criterion_group!(benches, frame);
criterion_main!(benches);
