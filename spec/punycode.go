package spec

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Punycode (RFC 3492) with the parameters IDNA uses. The standard library
// has it only in an internal package, and spec links nothing else.

const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
)

var errPunycodeOverflow = errors.New("label too long to encode")

// toASCIILabel returns the ACE form ("xn--…") of a label with non-ASCII
// runes, or the label unchanged if it is ASCII.
func toASCIILabel(label string) (string, error) {
	ascii := true
	for i := 0; i < len(label); i++ {
		if label[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return label, nil
	}
	enc, err := punycodeEncode(label)
	if err != nil {
		return "", err
	}
	return "xn--" + enc, nil
}

func punycodeEncode(s string) (string, error) {
	runes := []rune(s)
	var out strings.Builder
	for _, r := range runes {
		if r < pcInitialN {
			out.WriteByte(byte(r))
		}
	}
	b := out.Len()
	h := b
	if b > 0 {
		out.WriteByte('-')
	}
	n, delta, bias := int32(pcInitialN), int32(0), int32(pcInitialBias)
	for h < len(runes) {
		m := int32(0x7fffffff)
		for _, r := range runes {
			if r >= n && r < m {
				m = r
			}
		}
		if int64(delta)+int64(m-n)*int64(h+1) > 0x7fffffff {
			return "", errPunycodeOverflow
		}
		delta += (m - n) * int32(h+1)
		n = m
		for _, r := range runes {
			if r < n {
				delta++
				if delta < 0 {
					return "", errPunycodeOverflow
				}
			}
			if r != n {
				continue
			}
			q := delta
			for k := int32(pcBase); ; k += pcBase {
				t := k - bias
				if t < pcTMin {
					t = pcTMin
				} else if t > pcTMax {
					t = pcTMax
				}
				if q < t {
					break
				}
				out.WriteByte(pcDigit(t + (q-t)%(pcBase-t)))
				q = (q - t) / (pcBase - t)
			}
			out.WriteByte(pcDigit(q))
			bias = pcAdapt(delta, int32(h+1), h == b)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return out.String(), nil
}

func pcDigit(d int32) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}

func pcAdapt(delta, numPoints int32, first bool) int32 {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := int32(0)
	for delta > ((pcBase-pcTMin)*pcTMax)/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}
