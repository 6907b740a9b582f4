//! Name tags that do not cover each other (issue 24: with 16 players in a
//! room, bots standing together drew their names over one another). Each
//! tag tries the corners around its character in turn — above right,
//! below right, above left, below left — and takes the first whose box
//! neither overlaps a tag already placed nor leaves the panel; a tag with
//! no free corner is left out (its character is still drawn). Pure: tested
//! natively.

use super::view::RectF;

/// The tags placed so far in one panel, CSS px.
#[derive(Debug, Clone, Default)]
pub struct Tags {
    placed: Vec<RectF>,
}

impl Tags {
    /// Where to draw a tag `w` × `h` px for a character of radius `r` px at
    /// `(x, y)` within `clip`: the baseline-left point of its text, or
    /// `None` when every corner is taken.
    pub fn place(
        &mut self,
        (x, y): (f32, f32),
        r: f32,
        (w, h): (f32, f32),
        clip: RectF,
    ) -> Option<(f32, f32)> {
        let d = r * 0.75;
        let corners = [
            (x + d, y - d - h),
            (x + d, y + d),
            (x - d - w, y - d - h),
            (x - d - w, y + d),
        ];
        let inside = |b: &RectF| {
            b.x >= clip.x
                && b.y >= clip.y
                && b.x + b.w <= clip.x + clip.w
                && b.y + b.h <= clip.y + clip.h
        };
        let free = |b: &RectF| !self.placed.iter().any(|p| overlap(p, b));
        let b = corners
            .into_iter()
            .map(|(bx, by)| RectF { x: bx, y: by, w, h })
            .find(|b| inside(b) && free(b))?;
        self.placed.push(b);
        Some((b.x, b.y + h))
    }
}

fn overlap(a: &RectF, b: &RectF) -> bool {
    a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIP: RectF = RectF {
        x: 0.0,
        y: 0.0,
        w: 300.0,
        h: 200.0,
    };
    const TAG: (f32, f32) = (40.0, 12.0);

    #[test]
    fn crowded_tags_take_the_free_corners_then_step_aside() {
        let mut tags = Tags::default();
        // The first takes the upper right corner of its character.
        assert_eq!(
            tags.place((100.0, 100.0), 8.0, TAG, CLIP),
            Some((106.0, 94.0))
        );
        // A second character on the same spot: below right, then above
        // left, below left; a fifth has no corner left.
        assert_eq!(
            tags.place((100.0, 100.0), 8.0, TAG, CLIP),
            Some((106.0, 118.0))
        );
        assert_eq!(
            tags.place((100.0, 100.0), 8.0, TAG, CLIP),
            Some((54.0, 94.0))
        );
        assert_eq!(
            tags.place((100.0, 100.0), 8.0, TAG, CLIP),
            Some((54.0, 118.0))
        );
        assert_eq!(tags.place((100.0, 100.0), 8.0, TAG, CLIP), None);
        // Far enough away, the upper right corner is free again.
        assert_eq!(
            tags.place((250.0, 40.0), 8.0, TAG, CLIP),
            Some((256.0, 34.0))
        );
    }

    #[test]
    fn a_tag_at_the_panel_edge_turns_inward() {
        let mut tags = Tags::default();
        // At the top edge: no room above, so below right.
        assert_eq!(
            tags.place((100.0, 4.0), 8.0, TAG, CLIP),
            Some((106.0, 22.0))
        );
    }
}
