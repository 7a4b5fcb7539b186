//! Text on bitmap pictures, typeset glyph by glyph at each glyph's own side bearing.
//!
//! plotters' embedded-font renderer starts every glyph's outline at the pen position and
//! drops its left side bearing, so glyphs with a wide bearing (`1`) leave a gap after them
//! and glyphs that reach left of the pen (`j`) one before them: "ob jective", "1 0.0". The
//! wrapper below draws every other element through the bitmap backend unchanged and lays
//! text out itself with ab_glyph: the same advances and kerning as plotters' size estimate
//! (so labels still fit the room the chart gave them), each outline placed where the font
//! puts it. SVG pictures are unaffected: their text is SVG text.

use ab_glyph::{point, Font, FontRef, ScaleFont};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// A drawing backend whose text is typeset with the embedded DejaVu Sans (the only font the
/// pictures use).
pub struct Typeset<B> {
    inner: B,
    font: Option<FontRef<'static>>,
}

impl<B> Typeset<B> {
    pub fn new(inner: B) -> Self {
        // The font is valid by construction; were it not, plotters' own text drawing is used.
        let font = FontRef::try_from_slice(dejavu::sans::regular()).ok();
        Typeset { inner, font }
    }
}

type Drawn<B> = Result<(), DrawingErrorKind<<B as DrawingBackend>::ErrorType>>;

impl<B: DrawingBackend> DrawingBackend for Typeset<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Drawn<B> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Drawn<B> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn<B> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn<B> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn<B> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn<B> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn<B> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Drawn<B> {
        self.inner.fill_polygon(vertices, style)
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Drawn<B> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Drawn<B> {
        let Some(font) = &self.font else {
            return self.inner.draw_text(text, style, pos);
        };
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        // Anchored and rotated exactly as plotters does, from its own layout box.
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => min_x - max_x,
            HPos::Center => (min_x - max_x) / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => (min_y - max_y) / 2,
            VPos::Bottom => min_y - max_y,
        };
        let rotation = style.transform();
        let (width, height) = self.inner.get_size();
        let size = style.size() as f32;
        let scaled = font.as_scaled(size);
        let mut pen = 0f32;
        let mut previous = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                pen += scaled.kern(p, id);
            }
            previous = Some(id);
            let glyph = id.with_scale_and_position(scaled.scale(), point(pen, 0.0));
            pen += scaled.h_advance(id);
            let Some(outline) = scaled.outline_glyph(glyph) else {
                continue; // a space
            };
            let bounds = outline.px_bounds();
            // plotters' vertical placement: the outline's top half an em above the middle.
            let (left, top) = (bounds.min.x as i32, (size / 2.0 + bounds.min.y) as i32);
            let mut coverage = Vec::new();
            outline.draw(|x, y, c| coverage.push((x as i32 + left, y as i32 + top, c)));
            for (x, y, c) in coverage {
                let (x, y) = rotation.transform(x + dx - min_x, y + dy - min_y);
                let (x, y) = (pos.0 + x, pos.1 + y);
                if x >= 0 && y >= 0 && x < width as i32 && y < height as i32 {
                    let shade = BackendColor {
                        alpha: colour.alpha * f64::from(c),
                        rgb: colour.rgb,
                    };
                    self.inner.draw_pixel((x, y), shade)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// Large enough that a side bearing is several pixels wide.
    const SIZE: f64 = 60.0;

    /// The first and last columns with ink of `text` drawn at x = 20 on a white strip.
    fn ink_columns(text: &str) -> (i32, i32) {
        let (w, h) = (400u32, 100u32);
        let mut pixels = vec![255u8; (w * h * 3) as usize];
        {
            let root =
                Typeset::new(BitMapBackend::with_buffer(&mut pixels, (w, h))).into_drawing_area();
            root.draw_text(
                text,
                &("sans-serif", SIZE).into_font().color(&BLACK),
                (20, 5),
            )
            .unwrap();
            root.present().unwrap();
        }
        let inked = |x: u32| (0..h).any(|y| pixels[((y * w + x) * 3) as usize] < 128);
        let columns: Vec<i32> = (0..w).filter(|&x| inked(x)).map(|x| x as i32).collect();
        (columns[0], *columns.last().unwrap())
    }

    fn metrics(c: char) -> (f32, f32) {
        let font = FontRef::try_from_slice(dejavu::sans::regular()).unwrap();
        let scaled = font.as_scaled(SIZE as f32);
        let id = scaled.glyph_id(c);
        (scaled.h_side_bearing(id), scaled.h_advance(id))
    }

    #[test]
    fn glyphs_start_at_their_side_bearing() {
        super::super::font();
        // '1' has a wide left bearing: its ink starts that far right of the pen.
        let (bearing, _) = metrics('1');
        let (first, _) = ink_columns("1");
        assert!(
            (first - (20 + bearing.round() as i32)).abs() <= 1,
            "{first} {bearing}"
        );
        // 'j' reaches left of its pen: after 'o' it closes up to the font's spacing, not a
        // side bearing's width further right.
        let (o_bearing, o_advance) = metrics('o');
        let (j_bearing, _) = metrics('j');
        let (_, o_end) = ink_columns("o");
        let (_, oj_end) = ink_columns("oj");
        let (j_first, j_end) = ink_columns("j");
        let j_at = 20.0 + o_advance + j_bearing;
        let expected_end = j_at.round() as i32 + (j_end - j_first);
        assert!(
            (oj_end - expected_end).abs() <= 1,
            "{oj_end} vs {expected_end}"
        );
        assert!(o_end < oj_end && o_bearing >= 0.0);
    }
}
