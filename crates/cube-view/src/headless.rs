//! Rendering without a window: any adapter (lavapipe on a machine without a GPU) into an
//! offscreen `Rgba8Unorm` texture — the same format the native app's paint source uses —
//! read back as RGBA pixels.

use crate::render::{CubeRenderer, FrameInput, required_limits, target_texture};

/// A device, a queue and a renderer, ready for offscreen frames.
pub struct Headless {
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: CubeRenderer,
    format: wgpu::TextureFormat,
    /// The adapter's name, for reports.
    pub adapter: String,
}

/// Why headless rendering could not start.
#[derive(Debug)]
pub struct NoAdapter(pub String);

impl std::fmt::Display for NoAdapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no graphics adapter ({}); on Debian, `apt-get install mesa-vulkan-drivers` gives a software one",
            self.0
        )
    }
}

impl std::error::Error for NoAdapter {}

/// The format offscreen frames use (not sRGB: the shader encodes).
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

impl Headless {
    /// Opens the first adapter that can render, for targets of [`FORMAT`].
    pub fn new() -> Result<Headless, NoAdapter> {
        Headless::with_format(FORMAT)
    }

    /// The same for targets of `format` (to compare sRGB and plain targets).
    pub fn with_format(format: wgpu::TextureFormat) -> Result<Headless, NoAdapter> {
        // Vulkan first (lavapipe without a GPU); GL only when there is no Vulkan at all, since
        // probing GL without a display prints warnings.
        let adapter = [wgpu::Backends::VULKAN, wgpu::Backends::GL]
            .into_iter()
            .find_map(|backends| {
                let instance = wgpu::Instance::new(&wgpu::InstanceDescriptor {
                    backends,
                    ..Default::default()
                });
                pollster::block_on(
                    instance.request_adapter(&wgpu::RequestAdapterOptions::default()),
                )
                .ok()
            })
            .ok_or_else(|| NoAdapter("neither Vulkan nor GL answered".into()))?;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("cube-view"),
            required_features: wgpu::Features::empty(),
            required_limits: required_limits().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| NoAdapter(e.to_string()))?;
        let renderer = CubeRenderer::new(&device, format);
        Ok(Headless {
            device,
            queue,
            renderer,
            format,
            adapter: adapter.get_info().name,
        })
    }

    /// Renders a frame of `width` × `height` and returns its RGBA8 pixels, row by row.
    pub fn render(&mut self, frame: FrameInput<'_>, width: u32, height: u32) -> Vec<u8> {
        let texture = self.target(width, height);
        let view = texture.create_view(&Default::default());
        self.renderer.prepare(&self.queue, frame, width, height);
        self.renderer
            .render(&self.device, &self.queue, &view, width, height);
        self.read_back(&texture)
    }

    /// Prepares and submits one frame into `target` without waiting for it: the CPU side of a
    /// frame, as an app pays it every refresh.
    pub fn submit(
        &mut self,
        frame: FrameInput<'_>,
        target: &wgpu::TextureView,
        width: u32,
        height: u32,
    ) {
        self.renderer.prepare(&self.queue, frame, width, height);
        self.renderer
            .render(&self.device, &self.queue, target, width, height);
    }

    /// Waits until the device has finished everything submitted.
    pub fn wait(&self) {
        self.device
            .poll(wgpu::PollType::Wait)
            .expect("the device answers");
    }

    /// An offscreen target of the renderer's format.
    pub fn target(&self, width: u32, height: u32) -> wgpu::Texture {
        target_texture(&self.device, width, height, self.format)
    }

    fn read_back(&self, texture: &wgpu::Texture) -> Vec<u8> {
        let (width, height) = (texture.width(), texture.height());
        let row = (4 * width).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: u64::from(row * height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: None,
                },
            },
            texture.size(),
        );
        self.queue.submit(Some(encoder.finish()));
        let slice = buffer.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        self.device
            .poll(wgpu::PollType::Wait)
            .expect("the device answers");
        let data = slice.get_mapped_range();
        let mut pixels = Vec::with_capacity((4 * width * height) as usize);
        for y in 0..height {
            let start = (y * row) as usize;
            pixels.extend_from_slice(&data[start..start + (4 * width) as usize]);
        }
        pixels
    }
}

/// Writes RGBA8 pixels as a PNG file.
pub fn save_png(
    path: &std::path::Path,
    pixels: &[u8],
    width: u32,
    height: u32,
) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer
        .write_image_data(pixels)
        .map_err(std::io::Error::other)?;
    writer.finish().map_err(std::io::Error::other)
}
