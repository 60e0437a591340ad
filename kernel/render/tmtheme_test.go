package render

import (
	"strings"
	"testing"
)

const testTmTheme = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>name</key><string>Test &amp; Co</string>
	<key>settings</key>
	<array>
		<dict><key>settings</key><dict><key>background</key><string>#000000</string><key>foreground</key><string>#FFFFFF</string></dict></dict>
		<dict><key>name</key><string>Comment</string><key>scope</key><string>comment</string>
			<key>settings</key><dict><key>foreground</key><string>#112233</string><key>fontStyle</key><string>italic</string></dict></dict>
		<dict><key>scope</key><string>string, markup.raw</string>
			<key>settings</key><dict><key>foreground</key><string>#abc</string></dict></dict>
		<dict><key>scope</key><string>string.quoted.double</string>
			<key>settings</key><dict><key>foreground</key><string>#00FF0080</string></dict></dict>
		<dict><key>scope</key><string>source.go keyword</string>
			<key>settings</key><dict><key>foreground</key><string>#999999</string></dict></dict>
		<dict><key>scope</key><string>keyword</string>
			<key>settings</key><dict><key>foreground</key><string>#445566</string></dict></dict>
		<dict><key>scope</key><string>entity.other.attribute-name</string>
			<key>settings</key><dict><key>foreground</key><string>not a colour</string></dict></dict>
	</array>
</dict>
</plist>`

func TestParseTmThemeMapsScopesToRoles(t *testing.T) {
	th, err := ParseTmTheme([]byte(testTmTheme), "dark")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		role role
		want uint32
	}{
		{rComment, 0x112233},
		{rString, 0xAABBCC},     // string.quoted is coloured by "string" (the longest matching selector)
		{rInlineCode, 0xAABBCC}, // markup.raw.inline by "markup.raw"
		{rKeyword, 0x445566},    // "source.go keyword" needs context: skipped
		{rOperator, 0x445566},   // keyword.operator falls back to keyword
		{rAttr, darkRGB[rAttr]}, // a bad colour: the built-in one stays
		{rHeading, darkRGB[rHeading]},
	} {
		if got := th.rgb[c.role]; got != c.want {
			t.Errorf("role %d: %06x, want %06x", c.role, got, c.want)
		}
	}
	light, err := ParseTmTheme([]byte(testTmTheme), "light")
	if err != nil {
		t.Fatal(err)
	}
	if light.rgb[rHeading] != lightRGB[rHeading] || light.rgb[rComment] != 0x112233 {
		t.Error("a light theme's uncovered roles are not the built-in light ones")
	}
}

func TestParseTmThemeRejectsWhatIsNotATheme(t *testing.T) {
	for _, data := range []string{"", "not xml at all", "<plist><dict><key>name</key><string>x</string></dict></plist>",
		"<plist><dict><key>settings</key><array><dict><key>scope</key><string>comment</string></dict></array></dict></plist>",
		strings.Repeat("<dict>", 100)} {
		if _, err := ParseTmTheme([]byte(data), "dark"); err == nil {
			t.Errorf("%.40q parsed", data)
		}
	}
}

func TestCustomThemeColoursTheOutput(t *testing.T) {
	th, err := ParseTmTheme([]byte(testTmTheme), "dark")
	if err != nil {
		t.Fatal(err)
	}
	reply := "```go\n// note\nx := \"s\"\n```\n"
	got := string(render(t, Options{Width: 80, Highlight: true, TrueColor: true, Custom: th}, reply))
	for _, want := range []string{"38;2;17;34;51", "38;2;170;187;204"} { // #112233, #AABBCC
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q: %q", want, got)
		}
	}
	plain := string(render(t, Options{Width: 80, Highlight: true, TrueColor: true}, reply))
	if strings.Contains(plain, "38;2;17;34;51") {
		t.Error("the built-in theme has the custom colour")
	}
	// The 256-colour palette is built from the theme as well.
	if got := string(render(t, Options{Width: 80, Highlight: true, Custom: th}, reply)); !strings.Contains(got, "38;5;") || got == string(render(t, Options{Width: 80, Highlight: true}, reply)) {
		t.Errorf("256 colours: %q", got)
	}
}
