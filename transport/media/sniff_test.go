package media

import (
	"errors"
	"strings"
	"testing"

	"atende/engine"
)

// Heads of real files, enough of them for classification.
var (
	jpegHead = []byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
	pngHead  = []byte("\x89PNG\x0D\x0A\x1A\x0A\x00\x00\x00\x0DIHDR\x00\x00\x00\x10")
	gifHead  = []byte("GIF89a\x10\x00\x10\x00\x80\x00\x00")
	webpHead = []byte("RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00")
	opusHead = []byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x00\x00\x00\x00\x11\x22\x33\x44\x01\x13OpusHead\x01\x01\x38\x01")
	theora   = []byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x00\x00\x00\x00\x11\x22\x33\x44\x01\x2a\x80theora\x03\x02")
	id3Head  = []byte("ID3\x04\x00\x00\x00\x00\x00\x23TSSE")
	mp3Frame = []byte("\xFF\xFB\x90\x64\x00\x00\x00\x00\x00\x00\x00")
	aacFrame = []byte("\xFF\xF1\x50\x80\x02\x1F\xFC\x21")
	amrHead  = []byte("#!AMR\n\x3c\x48\xf5")
	flacHead = []byte("fLaC\x00\x00\x00\x22")
	m4aHead  = []byte("\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00M4A mp42isom\x00\x00\x00\x00")
	mp4Head  = []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2\x00\x00\x00\x08free")
	movHead  = []byte("\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  \x00\x00\x00\x08wide")
	heicHead = []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic\x00\x00\x00\x08meta")
	webmHead = []byte("\x1A\x45\xDF\xA3\x9F\x42\x86\x81\x01\x42\xF7\x81\x01\x42\x82\x84webm\x42\x87")
	mkvHead  = []byte("\x1A\x45\xDF\xA3\x9F\x42\x86\x81\x01\x42\xF7\x81\x01\x42\x82\x88matroska")
	wavHead  = []byte("RIFF\x24\x08\x00\x00WAVEfmt \x10\x00\x00\x00")
	pdfHead  = []byte("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj")
	zipHead  = []byte("PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00")
	oleHead  = []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\x00\x00\x00\x00")
	textHead = []byte("Olá, segue a lista de preços.\nItem;Valor\nA;10\n")
)

func TestClassify(t *testing.T) {
	cases := []struct {
		name         string
		head         []byte
		declaredType string
		declaredName string
		wantExt      string
		wantMedia    string
	}{
		{name: "jpeg", head: jpegHead, wantExt: ".jpg", wantMedia: engine.MediaImage},
		{name: "png", head: pngHead, wantExt: ".png", wantMedia: engine.MediaImage},
		{name: "gif", head: gifHead, wantExt: ".gif", wantMedia: engine.MediaImage},
		{name: "webp", head: webpHead, wantExt: ".webp", wantMedia: engine.MediaImage},
		{name: "heic from an iPhone", head: heicHead, wantExt: ".heic", wantMedia: engine.MediaImage},
		{name: "ogg opus voice note", head: opusHead, wantExt: ".ogg", wantMedia: engine.MediaAudio},
		{name: "ogg theora", head: theora, wantExt: ".ogv", wantMedia: engine.MediaVideo},
		{name: "mp3 with ID3", head: id3Head, wantExt: ".mp3", wantMedia: engine.MediaAudio},
		{name: "mp3 without ID3", head: mp3Frame, wantExt: ".mp3", wantMedia: engine.MediaAudio},
		{name: "aac adts", head: aacFrame, wantExt: ".aac", wantMedia: engine.MediaAudio},
		{name: "amr", head: amrHead, wantExt: ".amr", wantMedia: engine.MediaAudio},
		{name: "flac", head: flacHead, wantExt: ".flac", wantMedia: engine.MediaAudio},
		{name: "wav", head: wavHead, wantExt: ".wav", wantMedia: engine.MediaAudio},
		{name: "m4a brand", head: m4aHead, declaredType: "video/mp4", wantExt: ".m4a", wantMedia: engine.MediaAudio},
		{name: "mp4 video", head: mp4Head, wantExt: ".mp4", wantMedia: engine.MediaVideo},
		{name: "mp4 container declared audio (Safari recorder)", head: mp4Head, declaredType: "audio/mp4", wantExt: ".m4a", wantMedia: engine.MediaAudio},
		{name: "quicktime", head: movHead, wantExt: ".mov", wantMedia: engine.MediaVideo},
		{name: "webm video", head: webmHead, wantExt: ".webm", wantMedia: engine.MediaVideo},
		{name: "webm declared audio (Chrome recorder)", head: webmHead, declaredType: "audio/webm;codecs=opus", wantExt: ".weba", wantMedia: engine.MediaAudio},
		{name: "matroska", head: mkvHead, wantExt: ".mkv", wantMedia: engine.MediaVideo},
		{name: "pdf", head: pdfHead, wantExt: ".pdf", wantMedia: engine.MediaDocument},
		{name: "zip named docx", head: zipHead, declaredName: "Contrato.DOCX", wantExt: ".docx", wantMedia: engine.MediaDocument},
		{name: "zip named exe-ish stays zip", head: zipHead, declaredName: "x.apk", wantExt: ".zip", wantMedia: engine.MediaDocument},
		{name: "ole named xls", head: oleHead, declaredName: "planilha.xls", wantExt: ".xls", wantMedia: engine.MediaDocument},
		{name: "ole unnamed", head: oleHead, wantExt: ".bin", wantMedia: engine.MediaDocument},
		{name: "text", head: textHead, wantExt: ".txt", wantMedia: engine.MediaDocument},
		{name: "text named csv", head: textHead, declaredName: "lista.csv", wantExt: ".csv", wantMedia: engine.MediaDocument},
		{name: "declared type is not trusted", head: jpegHead, declaredType: "application/x-msdownload", wantExt: ".jpg", wantMedia: engine.MediaImage},
		{name: "unknown binary", head: []byte("\x00\x01\x02\x03\x04\x05garbage\xff\xfe"), wantExt: ".bin", wantMedia: engine.MediaDocument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, err := classify(tc.head, tc.declaredType, tc.declaredName)
			if err != nil {
				t.Fatalf("classify: %v", err)
			}
			if k.ext != tc.wantExt || k.media != tc.wantMedia {
				t.Fatalf("got %s %s, want %s %s", k.ext, k.media, tc.wantExt, tc.wantMedia)
			}
			if kinds[k.ext] != k {
				t.Fatalf("kind %+v is not the table's", k)
			}
		})
	}
}

func TestClassifyRefuses(t *testing.T) {
	cases := []struct {
		name         string
		head         string
		declaredType string
	}{
		{name: "windows exe declared as png", head: "MZ\x90\x00\x03\x00\x00\x00\x04\x00", declaredType: "image/png"},
		{name: "elf", head: "\x7FELF\x02\x01\x01\x00"},
		{name: "mach-o", head: "\xCF\xFA\xED\xFE\x07\x00\x00\x01"},
		{name: "java class", head: "\xCA\xFE\xBA\xBE\x00\x00\x00\x34"},
		{name: "wasm", head: "\x00asm\x01\x00\x00\x00"},
		{name: "shell script", head: "#!/bin/sh\nrm -rf /\n"},
		{name: "html", head: "<!DOCTYPE html><html><body>hi</body></html>"},
		{name: "html after whitespace", head: "\n\n   <html><script>alert(1)</script>"},
		{name: "xml", head: "<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>"},
		{name: "bare svg", head: "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>"},
		{name: "svg after text", head: "hello\n<svg onload=alert(1)>"},
		{name: "script tag in text", head: "just text <SCRIPT>alert(1)</SCRIPT>"},
		{name: "utf-16 html", head: "\xFF\xFE\x00\x00<\x00h\x00t\x00m\x00l\x00>\x00"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, err := classify([]byte(tc.head), tc.declaredType, "file")
			if !errors.Is(err, engine.E(engine.ErrMediaTypeNotAllowed)) {
				t.Fatalf("got %+v, %v; want ERR_MEDIA_TYPE_NOT_ALLOWED", k, err)
			}
			if engine.CodeOf(err).HTTPStatus() != 415 {
				t.Fatalf("status %d, want 415", engine.CodeOf(err).HTTPStatus())
			}
		})
	}
}

func TestCleanName(t *testing.T) {
	jpg := kinds[".jpg"]
	cases := []struct {
		name     string
		declared string
		want     string
		ok       bool
	}{
		{name: "plain", declared: "foto da fachada.jpg", want: "foto da fachada.jpg", ok: true},
		{name: "unix folders", declared: "../../etc/passwd", want: "passwd", ok: true},
		{name: "windows folders", declared: `C:\Users\ana\Desktop\nota.pdf`, want: "nota.pdf", ok: true},
		{name: "reserved characters", declared: `a<b>:c"d|e?f*.txt`, want: "a_b__c_d_e_f_.txt", ok: true},
		{name: "control characters", declared: "re\x00la\ttó\x1brio.pdf", want: "relatório.pdf", ok: true},
		{name: "empty", declared: "", want: "image.jpg", ok: true},
		{name: "only dots", declared: "...", want: "image.jpg", ok: true},
		{name: "invalid utf-8", declared: "a\xffb.png", want: "ab.png", ok: true},
		{name: "exe", declared: "boleto.exe", ok: false},
		{name: "exe upper case", declared: "BOLETO.EXE", ok: false},
		{name: "exe with trailing dot and space", declared: "boleto.exe. ", ok: false},
		{name: "right-to-left override hides exe", declared: "fatura\u202Efdp.exe", ok: false},
		{name: "double extension", declared: "fatura.pdf.js", ok: false},
		{name: "html", declared: "index.html", ok: false},
		{name: "svg", declared: "logo.svg", ok: false},
		{name: "shortcut", declared: "atalho.lnk", ok: false},
		{name: "powershell", declared: "x.ps1", ok: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := cleanName(tc.declared, jpg)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("cleanName(%q) = %q, %v; want %q, %v", tc.declared, got, ok, tc.want, tc.ok)
			}
		})
	}
	t.Run("long names keep their extension", func(t *testing.T) {
		got, ok := cleanName(strings.Repeat("ç", 300)+".pdf", jpg)
		if !ok || len(got) > maxNameBytes || !strings.HasSuffix(got, "ç.pdf") {
			t.Fatalf("got %q (%d bytes)", got, len(got))
		}
	})
}
