//! The wgpu renderer: two instanced draw calls per frame (27 cubie bodies, 54 stickers) into
//! any texture view, within WebGL2's limits, the native app's and the headless snapshots'.

use wgpu::util::DeviceExt;

pub use crate::mesh::FrameInput;
use crate::mesh::{
    BODIES, BodyInstance, BodyVertex, FrameUniform, STICKER_VERTICES, STICKERS, StickerInstance,
    body_instances, frame_uniform, rounded_box, sticker_instances, view_proj,
};
use crate::palette;

/// Multisampling of the cube's edges.
pub const SAMPLE_COUNT: u32 = 4;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth24Plus;

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
            body_instances: instances(
                "bodies",
                u64::from(BODIES) * std::mem::size_of::<BodyInstance>() as u64,
            ),
            sticker_instances: instances(
                "stickers",
                u64::from(STICKERS) * std::mem::size_of::<StickerInstance>() as u64,
            ),
            attachments: None,
        }
    }

    /// Uploads the frame's uniforms and instances for a target of `width` × `height`.
    pub fn prepare(&mut self, queue: &wgpu::Queue, frame: FrameInput<'_>, width: u32, height: u32) {
        let uniform = frame_uniform(
            view_proj(frame.camera, width, height),
            !self.format.is_srgb(),
        );
        queue.write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&uniform));
        let bodies = body_instances(frame.spin);
        queue.write_buffer(&self.body_instances, 0, bytemuck::cast_slice(&bodies));
        let stickers = sticker_instances(frame.cube, frame.spin);
        queue.write_buffer(&self.sticker_instances, 0, bytemuck::cast_slice(&stickers));
    }

    /// Records the frame into `target` (`width` × `height`, this renderer's format) and
    /// submits it: [`crate::mesh::DRAW_CALLS_PER_FRAME`] draw calls.
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
            pass.draw_indexed(0..self.body_index_count, 0, 0..BODIES);
            pass.set_pipeline(&self.sticker_pipeline);
            pass.set_vertex_buffer(0, self.sticker_instances.slice(..));
            pass.draw(0..STICKER_VERTICES, 0..STICKERS);
        }
        queue.submit(Some(encoder.finish()));
    }
}

/// The device limits the renderer needs: WebGL2's, so native draws nothing the browser's
/// painter could not.
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
