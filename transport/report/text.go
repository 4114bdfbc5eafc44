package report

import (
	"strings"
	"unicode"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

// EmojiPlaceholder replaces an emoji (with its modifiers and joiners) in the report:
// the embedded font has no colour glyphs, and an empty box reads as a defect.
const EmojiPlaceholder = "[emoji]"

// otherPlaceholder replaces a run of other runes the font cannot draw.
const otherPlaceholder = "?"

// textCleaner makes text drawable in the embedded Go font: runes the font has a
// glyph for stay, tabs become spaces, other control and format runes go, and each run
// of runes without a glyph becomes one placeholder. Coverage is read from the font
// itself (its cmap), so it is right whatever the text holds.
type textCleaner struct {
	font  *sfnt.Font
	buf   sfnt.Buffer
	known map[rune]bool
}

func newTextCleaner() textCleaner {
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		// The font is compiled in; failing to parse it is a broken build.
		panic("report: parse embedded font: " + err.Error())
	}
	return textCleaner{font: f, known: map[rune]bool{}}
}

func (c *textCleaner) drawable(r rune) bool {
	if ok, seen := c.known[r]; seen {
		return ok
	}
	g, err := c.font.GlyphIndex(&c.buf, r)
	ok := err == nil && g != 0
	c.known[r] = ok
	return ok
}

// emojiPart reports whether r belongs to an emoji sequence: pictographs, symbols and
// dingbats, regional indicators, skin-tone modifiers, variation selectors, keycap and
// zero-width joiners.
func emojiPart(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, // pictographs, emoticons, transport, flags, modifiers
		r >= 0x2600 && r <= 0x27BF, // misc symbols, dingbats
		r >= 0x2B00 && r <= 0x2BFF, // arrows and stars used as emoji
		r >= 0xFE00 && r <= 0xFE0F, // variation selectors
		r == 0x200D, r == 0x20E3,   // zero-width joiner, keycap
		r >= 0xE0020 && r <= 0xE007F: // tag sequences (subdivision flags)
		return true
	}
	return false
}

func (c *textCleaner) clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := "" // the placeholder of the run being replaced
	flush := func() {
		b.WriteString(pending)
		pending = ""
	}
	for _, r := range s {
		switch {
		case r == '\n':
			flush()
			b.WriteRune(r)
			continue
		case r == '\t':
			r = ' '
		case r == '\r':
			continue
		}
		if emojiPart(r) && !c.drawable(r) || r == 0x200D || r >= 0xFE00 && r <= 0xFE0F {
			// Keep a run of emoji parts as one placeholder; an emoji after a run of
			// other undrawable runes ends that run.
			if pending != EmojiPlaceholder {
				flush()
				pending = EmojiPlaceholder
			}
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if !c.drawable(r) {
			if pending == "" {
				pending = otherPlaceholder
			}
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}
