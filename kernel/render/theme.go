package render

import (
	"strconv"
	"sync"
)

// role is what a piece of text is, which decides its colour: the syntax
// classes of the highlighter and the parts of rendered markdown.
type role uint8

const (
	rNone role = iota // the terminal's own colour
	rCode             // code that is none of the classes below
	rKeyword
	rOperator
	rTag // markup tag names, YAML and TOML keys
	rType
	rBuiltin // constants and built-in functions
	rNumber
	rEscape
	rString
	rComment
	rFunction
	rAttr // markup attribute names
	rVariable
	rMeta // decorators, preprocessor lines, shebangs
	rInserted
	rDeleted
	rHeading
	rInlineCode
	rLink
	rURL
	rQuote
	rBullet
	rTaskDone
	rTaskOpen
	rRule // rules, table borders, code fences
	nRoles
)

// attr is a set of text attributes.
type attr uint8

const (
	aBold attr = 1 << iota
	aDim
	aItalic
	aUnderline
	aStrike
)

// style is how a piece of text is drawn.
type style struct {
	fg   role
	attr attr
}

// The palettes are this package's own, in the spirit of Monokai Extended:
// warm pink keywords, yellow strings, purple constants, green names, cyan
// types on a dark background, and darker, more saturated counterparts that
// stay readable on a light one. 0 means the terminal's own colour.
var darkRGB = [nRoles]uint32{
	rCode:       0xECECE4,
	rKeyword:    0xF5317F,
	rOperator:   0xF5317F,
	rTag:        0xF5317F,
	rType:       0x5FCDE4,
	rBuiltin:    0xAF87F5,
	rNumber:     0xAF87F5,
	rEscape:     0xC99CFF,
	rString:     0xE3D774,
	rComment:    0x85806C,
	rFunction:   0xA3D93A,
	rAttr:       0xA3D93A,
	rVariable:   0xFB9B3C,
	rMeta:       0x9EA4F0,
	rInserted:   0xA3D93A,
	rDeleted:    0xF5317F,
	rHeading:    0xF5317F,
	rInlineCode: 0xE3D774,
	rLink:       0x5FCDE4,
	rURL:        0x85806C,
	rQuote:      0xB0AC9A,
	rBullet:     0xFB9B3C,
	rTaskDone:   0xA3D93A,
	rTaskOpen:   0x85806C,
	rRule:       0x65624F,
}

var lightRGB = [nRoles]uint32{
	rCode:       0x2D2C27,
	rKeyword:    0xD0175E,
	rOperator:   0xD0175E,
	rTag:        0xD0175E,
	rType:       0x0C7C9C,
	rBuiltin:    0x7A3FC9,
	rNumber:     0x7A3FC9,
	rEscape:     0x9A52E0,
	rString:     0x9A7700,
	rComment:    0x8C8878,
	rFunction:   0x5A8C00,
	rAttr:       0x5A8C00,
	rVariable:   0xC05F00,
	rMeta:       0x5560C8,
	rInserted:   0x5A8C00,
	rDeleted:    0xD0175E,
	rHeading:    0xD0175E,
	rInlineCode: 0x9A7700,
	rLink:       0x0C7C9C,
	rURL:        0x8C8878,
	rQuote:      0x77736A,
	rBullet:     0xC05F00,
	rTaskDone:   0x5A8C00,
	rTaskOpen:   0x8C8878,
	rRule:       0xB5B1A2,
}

// palette holds, for every role, the SGR parameters that select its
// foreground colour ("" for the terminal's own).
type palette struct {
	fg [nRoles]string
}

// palettes caches the four palettes (theme × colour depth), built on
// first use, never at start-up.
var palettes [4]struct {
	once sync.Once
	p    *palette
}

var cubeLevels = [6]int{0, 95, 135, 175, 215, 255}

// paletteFor picks the palette for a theme ("light", anything else is
// dark) and colour depth.
func paletteFor(theme string, trueColor bool) *palette {
	i, rgb := 0, &darkRGB
	if theme == "light" {
		i, rgb = 2, &lightRGB
	}
	if trueColor {
		i++
	}
	c := &palettes[i]
	c.once.Do(func() { c.p = newPalette(rgb, trueColor) })
	return c.p
}

func newPalette(rgb *[nRoles]uint32, trueColor bool) *palette {
	p := &palette{}
	for i, c := range rgb {
		if c == 0 {
			continue
		}
		r, g, b := int(c>>16), int(c>>8&0xFF), int(c&0xFF)
		if trueColor {
			p.fg[i] = "38;2;" + strconv.Itoa(r) + ";" + strconv.Itoa(g) + ";" + strconv.Itoa(b)
		} else {
			p.fg[i] = "38;5;" + strconv.Itoa(xterm256(r, g, b))
		}
	}
	return p
}

// xterm256 is the colour of the xterm 256-colour cube or grey ramp nearest
// to r, g, b. The 16 system colours are left out: themes redefine them.
func xterm256(r, g, b int) int {
	best, bestD := 16, 1<<30
	for i := 0; i < 216; i++ {
		cr, cg, cb := cubeLevels[i/36], cubeLevels[i/6%6], cubeLevels[i%6]
		if d := dist(r, g, b, cr, cg, cb); d < bestD {
			best, bestD = 16+i, d
		}
	}
	for i := 0; i < 24; i++ {
		v := 8 + 10*i
		if d := dist(r, g, b, v, v, v); d < bestD {
			best, bestD = 232+i, d
		}
	}
	return best
}

func dist(r, g, b, r2, g2, b2 int) int {
	dr, dg, db := r-r2, g-g2, b-b2
	return dr*dr + dg*dg + db*db
}

// sgr appends the escape sequence that selects st, from a clean state.
func (p *palette) sgr(dst []byte, st style) []byte {
	dst = append(dst, "\x1b[0"...)
	if st.attr&aBold != 0 {
		dst = append(dst, ";1"...)
	}
	if st.attr&aDim != 0 {
		dst = append(dst, ";2"...)
	}
	if st.attr&aItalic != 0 {
		dst = append(dst, ";3"...)
	}
	if st.attr&aUnderline != 0 {
		dst = append(dst, ";4"...)
	}
	if st.attr&aStrike != 0 {
		dst = append(dst, ";9"...)
	}
	if fg := p.fg[st.fg]; fg != "" {
		dst = append(dst, ';')
		dst = append(dst, fg...)
	}
	return append(dst, 'm')
}
