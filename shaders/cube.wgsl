// The cube of Cubo da Velha: rounded cubie bodies and signed-distance stickers, instanced.
// Colours arrive linear; `frame.params.x` > 0.5 asks for sRGB encoding in the shader, for
// targets that are not sRGB themselves (the native paint texture, the web canvas), so every
// path shows the same colours.

struct Frame {
    view_proj: mat4x4<f32>,
    light: vec4<f32>,   // xyz: direction towards the light
    params: vec4<f32>,  // x: encode sRGB
    blank: vec4<f32>,
    spent: vec4<f32>,
    x_mark: vec4<f32>,
    o_mark: vec4<f32>,
    win: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: Frame;

fn encode(c: vec3<f32>) -> vec3<f32> {
    if (frame.params.x < 0.5) {
        return c;
    }
    let lo = c * 12.92;
    let hi = 1.055 * pow(max(c, vec3<f32>(0.0)), vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c <= vec3<f32>(0.0031308));
}

fn shade(base: vec3<f32>, normal: vec3<f32>) -> vec3<f32> {
    let n = normalize(normal);
    let diffuse = max(dot(n, normalize(frame.light.xyz)), 0.0);
    let fill = max(dot(n, normalize(vec3<f32>(-0.6, -0.2, 0.5))), 0.0);
    return base * (0.42 + 0.55 * diffuse + 0.12 * fill);
}

struct BodyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) colour: vec3<f32>,
};

@vertex
fn body_vs(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) m0: vec4<f32>,
    @location(3) m1: vec4<f32>,
    @location(4) m2: vec4<f32>,
    @location(5) m3: vec4<f32>,
    @location(6) colour: vec4<f32>,
) -> BodyOut {
    let model = mat4x4<f32>(m0, m1, m2, m3);
    var out: BodyOut;
    out.clip = frame.view_proj * model * vec4<f32>(position, 1.0);
    out.normal = (model * vec4<f32>(normal, 0.0)).xyz;
    out.colour = colour.rgb;
    return out;
}

@fragment
fn body_fs(in: BodyOut) -> @location(0) vec4<f32> {
    return vec4<f32>(encode(shade(in.colour, in.normal)), 1.0);
}

struct StickerOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) @interpolate(flat) state: u32,
};

// Bit 2 of a sticker's state: it is on a line that ended the game. Its quad grows past the
// sticker (still inside the cubie's face) so a ring can glow in the margin around it.
const WINNING: u32 = 4u;
const WIN_GROW: f32 = 1.17;

@vertex
fn sticker_vs(
    @builtin(vertex_index) index: u32,
    @location(0) m0: vec4<f32>,
    @location(1) m1: vec4<f32>,
    @location(2) m2: vec4<f32>,
    @location(3) m3: vec4<f32>,
    @location(4) state: u32,
) -> StickerOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let uv = corners[index] * select(1.0, WIN_GROW, (state & WINNING) != 0u);
    let model = mat4x4<f32>(m0, m1, m2, m3);
    var out: StickerOut;
    out.clip = frame.view_proj * model * vec4<f32>(uv, 0.0, 1.0);
    out.uv = uv;
    out.normal = m2.xyz;
    out.state = state;
    return out;
}

fn round_square(p: vec2<f32>, half: f32, radius: f32) -> f32 {
    let q = abs(p) - vec2<f32>(half - radius);
    return length(max(q, vec2<f32>(0.0))) + min(max(q.x, q.y), 0.0) - radius;
}

fn segment(p: vec2<f32>, a: vec2<f32>, b: vec2<f32>) -> f32 {
    let pa = p - a;
    let ba = b - a;
    let h = clamp(dot(pa, ba) / dot(ba, ba), 0.0, 1.0);
    return length(pa - ba * h);
}

// Coverage of a shape given its signed distance: a one-pixel smooth edge at any size.
fn coverage(d: f32) -> f32 {
    let w = max(fwidth(d), 1e-4);
    return clamp(0.5 - d / w, 0.0, 1.0);
}

@fragment
fn sticker_fs(in: StickerOut) -> @location(0) vec4<f32> {
    let outline = coverage(round_square(in.uv, 1.0, 0.28));
    let kind = in.state & 3u;
    var colour = frame.blank.rgb;
    if (kind != 0u) {
        colour = frame.spent.rgb;
    }
    if (kind == 2u) {
        let d = min(segment(in.uv, vec2<f32>(-0.5, -0.5), vec2<f32>(0.5, 0.5)),
                    segment(in.uv, vec2<f32>(-0.5, 0.5), vec2<f32>(0.5, -0.5))) - 0.14;
        colour = mix(colour, frame.x_mark.rgb, coverage(d));
    }
    if (kind == 3u) {
        // A red ring around a pale red disc: a token, not a hole, so the middle of an O is as
        // recognisable as the crossing of an X.
        let r = length(in.uv);
        colour = mix(colour, mix(frame.o_mark.rgb, frame.blank.rgb, 0.2), coverage(r - 0.48));
        colour = mix(colour, frame.o_mark.rgb, coverage(abs(r - 0.48) - 0.13));
    }
    if ((in.state & WINNING) == 0u) {
        return vec4<f32>(encode(shade(colour, in.normal)), outline);
    }
    // Over the sticker's rim and out into the margin; unshaded, so it glows in any light.
    let ring = coverage(round_square(in.uv, WIN_GROW - 0.01, 0.34))
        * (1.0 - coverage(round_square(in.uv, 0.9, 0.22)));
    let lit = mix(shade(colour, in.normal), frame.win.rgb, ring);
    return vec4<f32>(encode(lit), max(outline, ring));
}
