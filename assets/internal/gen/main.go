// Command gen draws lnk's icons as PNG files: a rounded square with a
// shield, in lnk's colours. go generate ./assets runs it.
package main

import (
	"flag"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

var (
	blue  = color.NRGBA{0x1f, 0x5f, 0xbf, 0xff}
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

func main() {
	out := flag.String("out", "icons", "write the icons into `DIR`")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	write(filepath.Join(*out, "lnk.png"), appIcon(64))
}

// appIcon is a blue rounded square with a white shield.
func appIcon(n int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	r := float64(n) / 5
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if inRoundedSquare(float64(x)+0.5, float64(y)+0.5, float64(n), r) {
				img.SetNRGBA(x, y, blue)
			}
			if inShield(float64(x)+0.5, float64(y)+0.5, float64(n)) {
				img.SetNRGBA(x, y, white)
			}
		}
	}
	return img
}

func inRoundedSquare(x, y, n, r float64) bool {
	cx := math.Max(r, math.Min(n-r, x))
	cy := math.Max(r, math.Min(n-r, y))
	return math.Hypot(x-cx, y-cy) <= r
}

// inShield is a shield: straight sides in the top half, a point at the
// bottom.
func inShield(x, y, n float64) bool {
	top, mid, bottom := n*0.2, n*0.5, n*0.82
	half := n * 0.28
	dx := math.Abs(x - n/2)
	switch {
	case y < top || y > bottom:
		return false
	case y <= mid:
		return dx <= half
	default:
		return dx <= half*(bottom-y)/(bottom-mid)
	}
}

func write(path string, img image.Image) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
