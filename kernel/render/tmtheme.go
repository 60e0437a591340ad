package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Theme is a palette read from a TextMate theme (a .tmTheme file, as the
// original reads dark.tmTheme and light.tmTheme from the config
// directory): each role whose scopes the theme colours takes that colour,
// and the others keep the built-in theme's.
type Theme struct {
	rgb  [nRoles]uint32
	pals [2]struct {
		once sync.Once
		p    *palette
	}
}

// roleScopes are the TextMate scopes of each role, most fitting first.
var roleScopes = [nRoles][]string{
	rKeyword:    {"keyword.control", "keyword", "storage.modifier", "storage"},
	rOperator:   {"keyword.operator", "keyword"},
	rTag:        {"entity.name.tag", "meta.tag"},
	rType:       {"entity.name.type", "storage.type", "support.type", "entity.name.class"},
	rBuiltin:    {"constant.language", "support.function", "support.constant", "constant"},
	rNumber:     {"constant.numeric", "constant"},
	rEscape:     {"constant.character.escape", "constant.character"},
	rString:     {"string.quoted", "string"},
	rComment:    {"comment.line", "comment"},
	rFunction:   {"entity.name.function", "support.function"},
	rAttr:       {"entity.other.attribute-name"},
	rVariable:   {"variable.parameter", "variable"},
	rMeta:       {"meta.preprocessor", "entity.name.function.decorator", "meta.annotation", "comment"},
	rInserted:   {"markup.inserted"},
	rDeleted:    {"markup.deleted"},
	rHeading:    {"markup.heading", "entity.name.section"},
	rInlineCode: {"markup.raw.inline", "markup.raw", "markup.inline.raw"},
	rLink:       {"markup.underline.link", "string.other.link", "markup.link"},
	rURL:        {"markup.underline.link", "markup.link"},
	rQuote:      {"markup.quote"},
	rBullet:     {"punctuation.definition.list", "markup.list"},
	rRule:       {"meta.separator", "comment"},
}

// ParseTmTheme reads a TextMate theme: a property list whose settings
// array holds rules of a scope selector and a foreground colour. base
// ("light", anything else is dark) gives the colours of the roles the
// theme does not cover. Selectors that need context ("source.go string")
// are skipped; a scope matches a selector equal to it or to its prefix
// ("string" matches string.quoted), the longest such selector winning.
func ParseTmTheme(data []byte, base string) (*Theme, error) {
	rules, err := tmRules(data)
	if err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, errors.New("no scope has a foreground colour: is this a .tmTheme file?")
	}
	t := &Theme{rgb: darkRGB}
	if base == "light" {
		t.rgb = lightRGB
	}
	for r, scopes := range roleScopes {
		for _, scope := range scopes {
			if c, ok := bestRule(rules, scope); ok {
				t.rgb[r] = c
				break
			}
		}
	}
	return t, nil
}

// palette is the theme's palette for a colour depth, built on first use.
func (t *Theme) palette(trueColor bool) *palette {
	i := 0
	if trueColor {
		i = 1
	}
	c := &t.pals[i]
	c.once.Do(func() { c.p = newPalette(&t.rgb, trueColor) })
	return c.p
}

type tmRule struct {
	selector string
	rgb      uint32
}

func bestRule(rules []tmRule, scope string) (uint32, bool) {
	best, found := -1, uint32(0)
	for _, r := range rules {
		if (scope == r.selector || strings.HasPrefix(scope, r.selector+".")) && len(r.selector) > best {
			best, found = len(r.selector), r.rgb
		}
	}
	return found, best >= 0
}

// plistValue is a property-list value: a string, a dict (keys and values
// in order) or an array.
type plistValue struct {
	kind  string // "string", "dict", "array", or another element's name
	text  string
	keys  []string
	items []*plistValue
}

func (v *plistValue) get(key string) *plistValue {
	for i, k := range v.keys {
		if k == key && i < len(v.items) {
			return v.items[i]
		}
	}
	return nil
}

// tmRules reads the rules with a foreground colour out of a theme.
func tmRules(data []byte) ([]tmRule, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	var root *plistValue
	for root == nil {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("not a property list: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "dict" {
			if root, err = readPlist(d, se, 0); err != nil {
				return nil, err
			}
		}
	}
	settings := root.get("settings")
	if settings == nil || settings.kind != "array" {
		return nil, errors.New("no settings array: is this a .tmTheme file?")
	}
	var rules []tmRule
	for _, item := range settings.items {
		if item.kind != "dict" {
			continue
		}
		scope, s := item.get("scope"), item.get("settings")
		if scope == nil || s == nil || s.kind != "dict" {
			continue
		}
		fg := s.get("foreground")
		if fg == nil {
			continue
		}
		rgb, ok := hexColour(fg.text)
		if !ok {
			continue
		}
		for _, sel := range strings.Split(scope.text, ",") {
			sel = strings.TrimSpace(sel)
			// A selector with context or an exclusion ("source.go
			// string", "string - string.quoted") is not one scope.
			if sel == "" || strings.ContainsAny(sel, " \t|&()") {
				continue
			}
			rules = append(rules, tmRule{selector: sel, rgb: rgb})
		}
	}
	return rules, nil
}

// readPlist reads the element se opened; depth bounds nesting.
func readPlist(d *xml.Decoder, se xml.StartElement, depth int) (*plistValue, error) {
	if depth > 32 {
		return nil, errors.New("the property list nests too deep")
	}
	v := &plistValue{kind: se.Name.Local}
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("read the property list: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			child, err := readPlist(d, t, depth+1)
			if err != nil {
				return nil, err
			}
			if v.kind == "dict" && child.kind == "key" {
				v.keys = append(v.keys, child.text)
				continue
			}
			v.items = append(v.items, child)
			if v.kind == "dict" && len(v.items) > len(v.keys) {
				v.keys = append(v.keys, "") // a value without a key
			}
		case xml.CharData:
			if text.Len() < 4096 {
				text.Write(t)
			}
		case xml.EndElement:
			v.text = strings.TrimSpace(text.String())
			return v, nil
		}
	}
}

// hexColour reads #RGB, #RRGGBB or #RRGGBBAA (the alpha is dropped).
func hexColour(s string) (uint32, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(s), "#")
	if !ok {
		return 0, false
	}
	switch len(s) {
	case 3:
		s = string([]byte{s[0], s[0], s[1], s[1], s[2], s[2]})
	case 8:
		s = s[:6]
	case 6:
	default:
		return 0, false
	}
	n, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return 0, false
	}
	if n == 0 {
		n = 0x010101 // 0 means "the terminal's own colour" in a palette
	}
	return uint32(n), true
}
