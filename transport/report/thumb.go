package report

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // stored images may be PNG
	"io"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // WhatsApp stickers and many photos are WebP
)

// Thumbnail bounds: the longest side of a thumbnail in pixels, and the largest image
// (in pixels) decoded to make one — a bigger one (or a decompression bomb claiming to
// be one) gets no thumbnail, only its link.
const (
	ThumbPixels    = 320
	MaxImagePixels = 40_000_000
)

// MakeThumbnail reads an image (JPEG, PNG or WebP) and answers a JPEG of at most ThumbPixels on its longest side. The size
// in the header is checked before the pixels are decoded.
func MakeThumbnail(r io.ReadSeeker) ([]byte, error) {
	cfg, _, err := image.DecodeConfig(r)
	if err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return nil, fmt.Errorf("thumbnail: image of %dx%d pixels refused", cfg.Width, cfg.Height)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}
	src, _, err := image.Decode(r)
	if err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}
	w, h := cfg.Width, cfg.Height
	if w > ThumbPixels || h > ThumbPixels {
		if w >= h {
			w, h = ThumbPixels, max(1, h*ThumbPixels/w)
		} else {
			w, h = max(1, w*ThumbPixels/h), ThumbPixels
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	// White under transparent pixels: JPEG has no alpha.
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, dst, &jpeg.Options{Quality: 80}); err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}
	return out.Bytes(), nil
}
