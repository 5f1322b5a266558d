//! Lines and columns of byte offsets, counted as hclsyntax counts them: a
//! line ends at `\n` (a lone `\r` does not end one), and a column is one
//! grapheme cluster.

/// The line and column (both from 1) of `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let mut segment = &before[line_start..];
    if line_start == 0 {
        // hclsyntax skips a byte order mark before counting.
        segment = segment.strip_prefix('\u{feff}').unwrap_or(segment);
    }
    (line, graphemes(segment) + 1)
}

/// The number of grapheme clusters in `text`, near enough: see
/// [`cluster_starts`].
pub(crate) fn graphemes(text: &str) -> usize {
    cluster_starts(text).count()
}

/// The byte length of the first `count` grapheme clusters of `text`.
pub(crate) fn clusters_len(text: &str, count: usize) -> usize {
    cluster_starts(text).nth(count).unwrap_or(text.len())
}

/// Where each grapheme cluster of `text` starts, near enough to Unicode's
/// rules (UAX #29, which Go's `textseg` follows): `\r\n` is one cluster,
/// and no cluster starts at a character that extends the one before it
/// (combining and spacing marks of the main scripts, joiners, variation
/// selectors, emoji modifiers and tags), after a zero-width joiner or a
/// prepended mark, at the second of a pair of regional indicators, or
/// inside a Hangul syllable's jamo. Marks of rarer scripts outside these
/// tables start a cluster here and not in Go.
pub(crate) fn cluster_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    let mut prev: Option<char> = None;
    let mut regional_run = 0;
    text.char_indices().filter_map(move |(i, c)| {
        let joins = match prev {
            None => false,
            Some('\r') => c == '\n',
            Some(p) if is_control(p) || is_control(c) => false,
            Some('\u{200d}') => true,
            Some(p) if is_prepend(p) => true,
            Some(_) if is_regional_indicator(c) => regional_run % 2 == 1,
            Some(p) => is_extend(c) || hangul_joins(p, c),
        };
        regional_run = if is_regional_indicator(c) {
            regional_run + 1
        } else {
            0
        };
        prev = Some(c);
        (!joins).then_some(i)
    })
}

fn is_control(c: char) -> bool {
    c.is_control() && c != '\u{200d}'
}

/// Prepended concatenation marks (`Prepend`).
fn is_prepend(c: char) -> bool {
    matches!(u32::from(c),
        0x0600..=0x0605 | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2 | 0x110BD | 0x110CD)
}

#[derive(PartialEq, Eq)]
enum Jamo {
    L,
    V,
    T,
    Lv,
    Lvt,
}

fn jamo(c: char) -> Option<Jamo> {
    let c = u32::from(c);
    Some(match c {
        0x1100..=0x115F | 0xA960..=0xA97C => Jamo::L,
        0x1160..=0x11A7 | 0xD7B0..=0xD7C6 => Jamo::V,
        0x11A8..=0x11FF | 0xD7CB..=0xD7FB => Jamo::T,
        0xAC00..=0xD7A3 if (c - 0xAC00) % 28 == 0 => Jamo::Lv,
        0xAC00..=0xD7A3 => Jamo::Lvt,
        _ => return None,
    })
}

/// Hangul syllable sequences (GB6 to GB8).
fn hangul_joins(prev: char, c: char) -> bool {
    matches!(
        (jamo(prev), jamo(c)),
        (Some(Jamo::L), Some(_))
            | (Some(Jamo::V | Jamo::Lv), Some(Jamo::V | Jamo::T))
            | (Some(Jamo::T | Jamo::Lvt), Some(Jamo::T))
    )
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1f1e6}'..='\u{1f1ff}').contains(&c)
}

/// Characters that extend a grapheme cluster (`Extend`, `SpacingMark`): the
/// main blocks of combining marks and the marks of the Indic, Thai, Lao,
/// Tibetan and Myanmar scripts (whole ranges, of which a few letters too),
/// zero-width non-joiner and joiner, variation selectors, emoji modifiers
/// and tag characters.
fn is_extend(c: char) -> bool {
    matches!(u32::from(c),
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05BD
        | 0x05BF
        | 0x05C1..=0x05C2
        | 0x05C4..=0x05C5
        | 0x05C7
        | 0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0670
        | 0x06D6..=0x06DC
        | 0x06DF..=0x06E4
        | 0x06E7..=0x06E8
        | 0x06EA..=0x06ED
        | 0x0900..=0x0903
        | 0x093A..=0x094F
        | 0x0951..=0x0957
        | 0x0962..=0x0963
        | 0x0981..=0x0983
        | 0x09BC..=0x09D7
        | 0x0A01..=0x0A03
        | 0x0A3C..=0x0A51
        | 0x0A70..=0x0A71
        | 0x0A75
        | 0x0A81..=0x0A83
        | 0x0ABC..=0x0ACD
        | 0x0B01..=0x0B03
        | 0x0B3C..=0x0B57
        | 0x0B82
        | 0x0BBE..=0x0BCD
        | 0x0BD7
        | 0x0C00..=0x0C04
        | 0x0C3C..=0x0C56
        | 0x0C81..=0x0C83
        | 0x0CBC..=0x0CD6
        | 0x0D00..=0x0D03
        | 0x0D3B..=0x0D4D
        | 0x0D57
        | 0x0E31
        | 0x0E33..=0x0E3A
        | 0x0E47..=0x0E4E
        | 0x0EB1
        | 0x0EB3..=0x0EBC
        | 0x0EC8..=0x0ECE
        | 0x0F71..=0x0F84
        | 0x102B..=0x103E
        | 0x1AB0..=0x1AFF
        | 0x1DC0..=0x1DFF
        | 0x200C..=0x200D
        | 0x20D0..=0x20FF
        | 0x302A..=0x302F
        | 0x3099..=0x309A
        | 0xFE00..=0xFE0F
        | 0xFE20..=0xFE2F
        | 0x1F3FB..=0x1F3FF
        | 0xE0020..=0xE007F
        | 0xE0100..=0xE01EF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_as_hclsyntax_counts_them() {
        let text = "ab\ncd\r\né\u{301}x\ry";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 2), (1, 3));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 7), (3, 1));
        // `é` and a combining accent are one column.
        assert_eq!(line_column(text, 7 + 4), (3, 2));
        // A lone `\r` is a column, not a line.
        assert_eq!(line_column(text, text.len()), (3, 5));
        assert_eq!(line_column("\u{feff}a", 3), (1, 1));
        assert_eq!(graphemes("👍🏽🇫🇷👨\u{200d}👩"), 3);
        assert_eq!(clusters_len("e\u{301}e\u{301}x", 2), 6);
        assert_eq!(graphemes("\u{1100}\u{1161}\u{11a8}\u{ac00}\u{11a8}"), 2);
        assert_eq!(graphemes("\u{0e01}\u{0e33}\u{0600}\u{0661}"), 2);
    }
}
