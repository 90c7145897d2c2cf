// Command gen draws lnk's icons as PNG (and ICO) files: a rounded square
// with a shield, in lnk's colours, and the tray's state icons. go
// generate ./assets runs it.
package main

import (
	"bytes"
	"encoding/binary"
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
	grey  = color.NRGBA{0x70, 0x76, 0x80, 0xff}
	amber = color.NRGBA{0xe0, 0x8a, 0x00, 0xff}
	red   = color.NRGBA{0xd9, 0x30, 0x25, 0xff}
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
	black = color.NRGBA{0x00, 0x00, 0x00, 0xff}
	// dim is the template icons' idle ink: macOS shows it greyed.
	dim = color.NRGBA{0x00, 0x00, 0x00, 0x80}
)

// states are the tray's states, in the order of assets.TrayState.
var states = []string{"idle", "running", "question", "paused"}

func main() {
	out := flag.String("out", "icons", "write the icons into `DIR`")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	write(filepath.Join(*out, "lnk.png"), encode(appIcon(64)))
	for _, s := range states {
		write(filepath.Join(*out, "tray-"+s+".png"), encode(trayIcon(s, 32)))
		write(filepath.Join(*out, "tray-"+s+".ico"), ico(trayIcon(s, 16), trayIcon(s, 32)))
		write(filepath.Join(*out, "tray-"+s+"-template.png"), encode(templateIcon(s, 32)))
	}
}

// appIcon is a blue rounded square with a white shield.
func appIcon(n int) *image.NRGBA {
	return paint(n, func(x, y, n float64) (color.NRGBA, bool) {
		switch {
		case inShield(x, y, n):
			return white, true
		case inRoundedSquare(x, y, n, n/5):
			return blue, true
		}
		return color.NRGBA{}, false
	})
}

// trayIcon is the app icon in the colours of a state: grey when idle,
// blue when sandboxes run, blue with a red dot when a question waits,
// amber with pause bars when a sandbox is paused.
func trayIcon(state string, n int) *image.NRGBA {
	bg, mark := blue, inShield
	switch state {
	case "idle":
		bg = grey
	case "paused":
		bg, mark = amber, inPauseBars
	}
	return paint(n, func(x, y, n float64) (color.NRGBA, bool) {
		switch {
		case state == "question" && inBadge(x, y, n, 0.22):
			return red, true
		case state == "question" && inBadge(x, y, n, 0.30):
			return white, true
		case mark(x, y, n):
			return white, true
		case inRoundedSquare(x, y, n, n/5):
			return bg, true
		}
		return color.NRGBA{}, false
	})
}

// templateIcon is the macOS menu bar's template image: black ink on
// transparency, which macOS recolours for light and dark bars.
func templateIcon(state string, n int) *image.NRGBA {
	return paint(n, func(x, y, n float64) (color.NRGBA, bool) {
		switch state {
		case "idle":
			return dim, inShield(x, y, n)
		case "paused":
			return black, inPauseBars(x, y, n)
		case "question":
			if inBadge(x, y, n, 0.30) {
				return black, inBadge(x, y, n, 0.20) // a gap rings the dot
			}
		}
		return black, inShield(x, y, n)
	})
}

// paint draws an n×n image, asking at(x, y) for each pixel's centre.
func paint(n int, at func(x, y, n float64) (color.NRGBA, bool)) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if c, ok := at(float64(x)+0.5, float64(y)+0.5, float64(n)); ok {
				img.SetNRGBA(x, y, c)
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

// inPauseBars is two upright bars.
func inPauseBars(x, y, n float64) bool {
	if y < n*0.25 || y > n*0.75 {
		return false
	}
	return (x >= n*0.28 && x <= n*0.43) || (x >= n*0.57 && x <= n*0.72)
}

// inBadge is a dot of radius r·n in the top right corner.
func inBadge(x, y, n, r float64) bool {
	c := n * 0.74
	return math.Hypot(x-c, y-(n-c)) <= r*n
}

func encode(img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

// ico packs PNG images into a Windows icon file (Vista and later read
// PNG entries).
func ico(imgs ...*image.NRGBA) []byte {
	var head, body bytes.Buffer
	binary.Write(&head, binary.LittleEndian, [3]uint16{0, 1, uint16(len(imgs))})
	offset := 6 + 16*len(imgs)
	for _, img := range imgs {
		p := encode(img)
		n := img.Bounds().Dx()
		head.Write([]byte{byte(n), byte(n), 0, 0})
		binary.Write(&head, binary.LittleEndian, [2]uint16{1, 32})
		binary.Write(&head, binary.LittleEndian, [2]uint32{uint32(len(p)), uint32(offset)})
		offset += len(p)
		body.Write(p)
	}
	head.Write(body.Bytes())
	return head.Bytes()
}

func write(path string, b []byte) {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
