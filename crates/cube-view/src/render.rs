//! The wgpu renderer: two instanced draw calls per frame (27 cubie bodies, 54 stickers) into
//! any texture view, within WebGL2's limits so the same code runs in the browser.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use velha_rules::Cube;
use velha_rules::Player;
use velha_rules::cube::Sticker;
use wgpu::util::DeviceExt;

use crate::camera::Camera;
use crate::palette;
use crate::scene::{CUBIE_HALF, STICKER_HALF, Spin, cubies, stickers};

/// Draw calls one frame records.
pub const DRAW_CALLS_PER_FRAME: u32 = 2;
/// Multisampling of the cube's edges.
pub const SAMPLE_COUNT: u32 = 4;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24Plus;
/// Corner radius of a cubie body.
const BODY_RADIUS: f32 = 0.085;
/// The bit of a sticker's state that rings it as part of a winning line (`shaders/cube.wgsl`).
const WINNING: u32 = 4;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct FrameUniform {
    view_proj: [[f32; 4]; 4],
    light: [f32; 4],
    params: [f32; 4],
    blank: [f32; 4],
    spent: [f32; 4],
    x_mark: [f32; 4],
    o_mark: [f32; 4],
    win: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct BodyVertex {
    position: [f32; 3],
    normal: [f32; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct BodyInstance {
    model: [[f32; 4]; 4],
    colour: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct StickerInstance {
    model: [[f32; 4]; 4],
    state: u32,
}

/// What one frame shows.
#[derive(Clone, Copy, Debug)]
pub struct FrameInput<'a> {
    /// The position shown (before any turn in progress).
    pub cube: &'a Cube,
    /// The view.
    pub camera: &'a Camera,
    /// A turn in progress, if any.
    pub spin: Option<Spin>,
}

struct Attachments {
    size: (u32, u32),
    colour: wgpu::TextureView,
    depth: wgpu::TextureView,
}

/// Owns the pipelines and buffers; [`CubeRenderer::prepare`] uploads what a frame needs and
/// [`CubeRenderer::render`] records and submits it.
pub struct CubeRenderer {
    format: wgpu::TextureFormat,
    body_pipeline: wgpu::RenderPipeline,
    sticker_pipeline: wgpu::RenderPipeline,
    frame_buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    body_vertices: wgpu::Buffer,
    body_indices: wgpu::Buffer,
    body_index_count: u32,
    body_instances: wgpu::Buffer,
    sticker_instances: wgpu::Buffer,
    attachments: Option<Attachments>,
}

fn linear4(c: palette::Srgb) -> [f32; 4] {
    let [r, g, b] = c.linear();
    [r, g, b, 1.0]
}

/// A rounded box of half-size [`CUBIE_HALF`]: each face a grid that is dense near the edges,
/// where the rounding is.
fn rounded_box() -> (Vec<BodyVertex>, Vec<u16>) {
    let h = CUBIE_HALF;
    let flat = (h - BODY_RADIUS) / h;
    let steps: Vec<f32> = [-1.0, -0.985, -0.95, -0.9, -flat - (1.0 - flat) * 0.2, -flat]
        .into_iter()
        .chain([flat, flat + (1.0 - flat) * 0.2, 0.9, 0.95, 0.985, 1.0])
        .collect();
    let n = steps.len();
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let base = vertices.len() as u16;
            for &a in &steps {
                for &b in &steps {
                    let mut p = [0.0; 3];
                    p[axis] = sign;
                    p[(axis + 1) % 3] = a;
                    p[(axis + 2) % 3] = b;
                    let q = Vec3::from(p) * h;
                    let inner = q.clamp(
                        Vec3::splat(-(h - BODY_RADIUS)),
                        Vec3::splat(h - BODY_RADIUS),
                    );
                    let normal = (q - inner).normalize_or_zero();
                    vertices.push(BodyVertex {
                        position: (inner + normal * BODY_RADIUS).into(),
                        normal: normal.into(),
                    });
                }
            }
            for i in 0..n - 1 {
                for j in 0..n - 1 {
                    let at = |i: usize, j: usize| base + (i * n + j) as u16;
                    let quad = [
                        at(i, j),
                        at(i + 1, j),
                        at(i + 1, j + 1),
                        at(i, j),
                        at(i + 1, j + 1),
                        at(i, j + 1),
                    ];
                    // Keep the winding outward on both signs of every axis.
                    if sign > 0.0 {
                        indices.extend(quad);
                    } else {
                        indices.extend(quad.iter().rev());
                    }
                }
            }
        }
    }
    (vertices, indices)
}

impl CubeRenderer {
    /// Builds the pipelines for targets of `format` (sRGB or not: colours are encoded to
    /// match).
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> CubeRenderer {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("cube"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../../shaders/cube.wgsl").into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame"),
            size: std::mem::size_of::<FrameUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("frame"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: frame_buffer.as_entire_binding(),
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("cube"),
            bind_group_layouts: &[&layout],
            push_constant_ranges: &[],
        });
        let depth_stencil = |write| wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: write,
            depth_compare: wgpu::CompareFunction::LessEqual,
            stencil: Default::default(),
            bias: Default::default(),
        };
        let multisample = wgpu::MultisampleState {
            count: SAMPLE_COUNT,
            ..Default::default()
        };
        let model_attributes = |first: u32| {
            [0, 1, 2, 3].map(|i| wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x4,
                offset: 16 * i as u64,
                shader_location: first + i,
            })
        };
        let body_model = model_attributes(2);
        let body_instance_attributes = [
            body_model[0],
            body_model[1],
            body_model[2],
            body_model[3],
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x4,
                offset: 64,
                shader_location: 6,
            },
        ];
        let body_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("bodies"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("body_vs"),
                compilation_options: Default::default(),
                buffers: &[
                    wgpu::VertexBufferLayout {
                        array_stride: std::mem::size_of::<BodyVertex>() as u64,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3],
                    },
                    wgpu::VertexBufferLayout {
                        array_stride: std::mem::size_of::<BodyInstance>() as u64,
                        step_mode: wgpu::VertexStepMode::Instance,
                        attributes: &body_instance_attributes,
                    },
                ],
            },
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("body_fs"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            primitive: wgpu::PrimitiveState {
                cull_mode: Some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: Some(depth_stencil(true)),
            multisample,
            multiview: None,
            cache: None,
        });
        let sticker_model = model_attributes(0);
        let sticker_attributes = [
            sticker_model[0],
            sticker_model[1],
            sticker_model[2],
            sticker_model[3],
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Uint32,
                offset: 64,
                shader_location: 4,
            },
        ];
        let sticker_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("stickers"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("sticker_vs"),
                compilation_options: Default::default(),
                buffers: &[wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<StickerInstance>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &sticker_attributes,
                }],
            },
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("sticker_fs"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: wgpu::PrimitiveState {
                cull_mode: Some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: Some(depth_stencil(false)),
            multisample,
            multiview: None,
            cache: None,
        });
        let (vertices, indices) = rounded_box();
        let body_vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("body vertices"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let body_indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("body indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let instances = |label, size| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        CubeRenderer {
            format,
            body_pipeline,
            sticker_pipeline,
            frame_buffer,
            bind_group,
            body_vertices,
            body_indices,
            body_index_count: indices.len() as u32,
            body_instances: instances("bodies", 27 * std::mem::size_of::<BodyInstance>() as u64),
            sticker_instances: instances(
                "stickers",
                54 * std::mem::size_of::<StickerInstance>() as u64,
            ),
            attachments: None,
        }
    }

    /// Uploads the frame's uniforms and instances for a target of `width` × `height`.
    pub fn prepare(&mut self, queue: &wgpu::Queue, frame: FrameInput<'_>, width: u32, height: u32) {
        let aspect = width as f32 / height.max(1) as f32;
        let uniform = FrameUniform {
            view_proj: frame.camera.view_proj(aspect).to_cols_array_2d(),
            light: Vec3::new(0.45, 0.8, 0.6).normalize().extend(0.0).into(),
            params: [if self.format.is_srgb() { 0.0 } else { 1.0 }, 0.0, 0.0, 0.0],
            blank: linear4(palette::BLANK),
            spent: linear4(palette::SPENT),
            x_mark: linear4(palette::X_MARK),
            o_mark: linear4(palette::O_MARK),
            win: linear4(palette::WIN),
        };
        queue.write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&uniform));
        let bodies: Vec<BodyInstance> = cubies(frame.spin)
            .iter()
            .map(|c| BodyInstance {
                model: c.model.to_cols_array_2d(),
                colour: linear4(if c.side1 {
                    palette::SIDE1_BODY
                } else {
                    palette::BODY
                }),
            })
            .collect();
        queue.write_buffer(&self.body_instances, 0, bytemuck::cast_slice(&bodies));
        let stickers: Vec<StickerInstance> = stickers(frame.cube, frame.spin)
            .iter()
            .map(|s| StickerInstance {
                model: s.model(STICKER_HALF).to_cols_array_2d(),
                state: match s.state {
                    Sticker::Blank => 0,
                    Sticker::Spent => 1,
                    Sticker::Mark(Player::X) => 2,
                    Sticker::Mark(Player::O) => 3,
                } | if s.winning { WINNING } else { 0 },
            })
            .collect();
        queue.write_buffer(&self.sticker_instances, 0, bytemuck::cast_slice(&stickers));
    }

    /// Records the frame into `target` (`width` × `height`, this renderer's format) and
    /// submits it: [`DRAW_CALLS_PER_FRAME`] draw calls.
    pub fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        target: &wgpu::TextureView,
        width: u32,
        height: u32,
    ) {
        let size = (width.max(1), height.max(1));
        if self.attachments.as_ref().is_none_or(|a| a.size != size) {
            let texture = |label, format| {
                device
                    .create_texture(&wgpu::TextureDescriptor {
                        label: Some(label),
                        size: wgpu::Extent3d {
                            width: size.0,
                            height: size.1,
                            depth_or_array_layers: 1,
                        },
                        mip_level_count: 1,
                        sample_count: SAMPLE_COUNT,
                        dimension: wgpu::TextureDimension::D2,
                        format,
                        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                        view_formats: &[],
                    })
                    .create_view(&Default::default())
            };
            self.attachments = Some(Attachments {
                size,
                colour: texture("cube msaa", self.format),
                depth: texture("cube depth", DEPTH_FORMAT),
            });
        }
        let attachments = self.attachments.as_ref().expect("made above");
        let [r, g, b] = palette::BACKGROUND.linear();
        let clear = if self.format.is_srgb() {
            [r, g, b]
        } else {
            [
                palette::BACKGROUND.0,
                palette::BACKGROUND.1,
                palette::BACKGROUND.2,
            ]
            .map(|c| f32::from(c) / 255.0)
        };
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("cube"),
        });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("cube"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &attachments.colour,
                    resolve_target: Some(target),
                    depth_slice: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: f64::from(clear[0]),
                            g: f64::from(clear[1]),
                            b: f64::from(clear[2]),
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &attachments.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
            });
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_pipeline(&self.body_pipeline);
            pass.set_vertex_buffer(0, self.body_vertices.slice(..));
            pass.set_vertex_buffer(1, self.body_instances.slice(..));
            pass.set_index_buffer(self.body_indices.slice(..), wgpu::IndexFormat::Uint16);
            pass.draw_indexed(0..self.body_index_count, 0, 0..27);
            pass.set_pipeline(&self.sticker_pipeline);
            pass.set_vertex_buffer(0, self.sticker_instances.slice(..));
            pass.draw(0..6, 0..54);
        }
        queue.submit(Some(encoder.finish()));
    }
}

/// The device limits the renderer needs: WebGL2's, so native and web run the same code.
pub fn required_limits() -> wgpu::Limits {
    wgpu::Limits::downlevel_webgl2_defaults()
}

/// A texture the renderer can draw into and others can sample or copy: the native paint
/// source's and the headless snapshots' target.
pub fn target_texture(
    device: &wgpu::Device,
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("cube target"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}
