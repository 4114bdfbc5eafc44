package media

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameBytes bounds a cleaned file name (most file systems allow 255).
const maxNameBytes = 200

// dangerousExt are extensions a desktop or a browser runs or renders actively when
// the attendant opens the download. A declared name ending in one is refused, whatever
// the content: text-only scripts (.js, .vbs, .bat, .ps1) sniff as plain text.
var dangerousExt = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`
		exe com bat cmd scr pif msi msp mst msc cpl dll sys drv ocx
		js jse mjs vb vbs vbe wsf wsh wsc ws ps1 ps1xml ps2 psm1 psd1 psc1 msh msh1 msh2
		hta chm hlp lnk url scf inf reg gadget application appref-ms settingcontent-ms
		library-ms xll iqy slk jar jnlp class apk app command sh bash csh ksh zsh pl py rb
		html htm xhtml xht shtml mht mhtml svg svgz xml xsl xslt
	`) {
		dangerousExt["."+e] = true
	}
}

// cleanName makes a declared file name safe to show and to offer as a download name:
// no folders, no control or bidirectional-override characters (the "gpj.exe" trick),
// none of the characters Windows forbids, no leading or trailing dots and spaces
// (Windows drops trailing ones: "x.exe." is x.exe), at most maxNameBytes. It reports
// false for a name whose extension is dangerous. An empty result is replaced by the
// media type and the stored extension ("image.jpg").
func cleanName(declared string, k kind) (string, bool) {
	declared = strings.ToValidUTF8(declared, "")
	if i := strings.LastIndexAny(declared, `/\`); i >= 0 {
		declared = declared[i+1:]
	}
	var b strings.Builder
	for _, r := range declared {
		switch {
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r): // Cf: bidi overrides, zero-width, BOM
		case strings.ContainsRune(`<>:"|?*`, r):
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	name := strings.Trim(b.String(), " .\u00a0")
	if dangerousExt[strings.ToLower(path.Ext(name))] {
		return "", false
	}
	if len(name) > maxNameBytes {
		ext := path.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:maxNameBytes-len(ext)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
		name = stem + ext
	}
	if name == "" {
		name = k.media + k.ext
	}
	return name, true
}
