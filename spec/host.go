package spec

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// HostPattern is one entry of network.hosts or network.deny: an exact name,
// a subdomain pattern, any name, or (in deny only) an address range.
type HostPattern struct {
	// Name is the normalised name ("example.com"), the suffix of a
	// subdomain pattern without its "*." ("example.com" for
	// "*.example.com"), or "" for "*" and for address ranges.
	Name string
	// Subdomains is true for "*.example.com": any name ending in
	// ".example.com", never example.com itself.
	Subdomains bool
	// Any is true for "*".
	Any bool
	// Prefix is set for an address or CIDR (network.deny only).
	Prefix netip.Prefix
	// Port restricts the pattern to one port; 0 means any port.
	Port uint16
	// Text is the pattern as normalised, for logs: "*.example.com:443".
	Text string
}

// ParseHostPattern parses an entry of network.hosts. Addresses are refused:
// they belong under [network.lan].
func ParseHostPattern(s string) (HostPattern, error) {
	p, err := parsePattern(s)
	if err != nil {
		return p, err
	}
	if p.Prefix.IsValid() {
		return HostPattern{}, fmt.Errorf("%q is an address, and addresses are allowed only under [network.lan] allow", s)
	}
	return p, nil
}

// ParseDenyPattern parses an entry of network.deny: a host pattern or an
// address or CIDR range.
func ParseDenyPattern(s string) (HostPattern, error) {
	return parsePattern(s)
}

func parsePattern(s string) (HostPattern, error) {
	if s == "" {
		return HostPattern{}, errors.New("empty host: name a host such as \"example.com\"")
	}
	if len(s) > 300 {
		return HostPattern{}, fmt.Errorf("%q is longer than any host name", elide(s, 40))
	}
	if pfx, port, ok, err := parseAddrEntry(s); ok || err != nil {
		if err != nil {
			return HostPattern{}, err
		}
		return HostPattern{Prefix: pfx, Port: port, Text: s}, nil
	}
	host, port, err := splitPort(s)
	if err != nil {
		return HostPattern{}, err
	}
	p := HostPattern{Port: port}
	switch {
	case host == "*":
		p.Any = true
	case strings.HasPrefix(host, "*."):
		rest := host[2:]
		if rest == "" || rest == "." {
			return HostPattern{}, fmt.Errorf("%q has no domain after the wildcard: write \"*.example.com\"", s)
		}
		name, err := normalizeName(rest)
		if err != nil {
			return HostPattern{}, fmt.Errorf("%q: %v", s, err)
		}
		if !strings.Contains(name, ".") {
			return HostPattern{}, fmt.Errorf("%q matches a whole top-level domain: name the domain, such as \"*.example.%s\"", s, name)
		}
		p.Name, p.Subdomains = name, true
	default:
		if strings.Contains(host, "*") {
			return HostPattern{}, fmt.Errorf("%q: a wildcard may stand only as the whole first label, as in \"*.example.com\"", s)
		}
		if isAddrSpelling(host) {
			return HostPattern{}, fmt.Errorf("%q is an address, and addresses are allowed only under [network.lan] allow", s)
		}
		name, err := normalizeName(host)
		if err != nil {
			return HostPattern{}, fmt.Errorf("%q: %v", s, err)
		}
		p.Name = name
	}
	p.Text = p.String()
	return p, nil
}

// String returns the pattern in normalised form.
func (p HostPattern) String() string {
	var s string
	switch {
	case p.Prefix.IsValid():
		if p.Prefix.IsSingleIP() {
			s = p.Prefix.Addr().String()
		} else {
			s = p.Prefix.String()
		}
		if p.Port != 0 {
			if p.Prefix.Addr().Is6() {
				s = "[" + s + "]"
			}
			s += ":" + strconv.Itoa(int(p.Port))
		}
		return s
	case p.Any:
		s = "*"
	case p.Subdomains:
		s = "*." + p.Name
	default:
		s = p.Name
	}
	if p.Port != 0 {
		s += ":" + strconv.Itoa(int(p.Port))
	}
	return s
}

// MatchName reports whether the pattern matches a normalised host name (see
// [NormalizeHost]) on port. Address ranges never match names.
func (p HostPattern) MatchName(name string, port uint16) bool {
	if p.Port != 0 && p.Port != port {
		return false
	}
	switch {
	case p.Prefix.IsValid():
		return false
	case p.Any:
		return name != ""
	case p.Subdomains:
		return len(name) > len(p.Name)+1 && strings.HasSuffix(name, p.Name) && name[len(name)-len(p.Name)-1] == '.'
	default:
		return name == p.Name
	}
}

// MatchAddr reports whether the pattern is an address range holding addr
// on port.
func (p HostPattern) MatchAddr(addr netip.Addr, port uint16) bool {
	if !p.Prefix.IsValid() || (p.Port != 0 && p.Port != port) {
		return false
	}
	return p.Prefix.Contains(addr.Unmap())
}

// splitPort splits "host:port" (port optional). Brackets are refused here:
// a bracketed host is an IPv6 address, handled by parseAddrEntry.
func splitPort(s string) (string, uint16, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0, nil
	}
	port, err := parsePort(s[i+1:])
	if err != nil {
		return "", 0, fmt.Errorf("%q: %v", s, err)
	}
	return s[:i], port, nil
}

func parsePort(s string) (uint16, error) {
	if s == "" || len(s) > 5 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	n, _ := strconv.Atoi(s)
	if n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return uint16(n), nil
}

// normalizeName folds a host name the one way every comparison uses: lower
// case, no trailing dot, IDN labels in punycode. It refuses anything that is
// not a valid DNS name.
func normalizeName(s string) (string, error) {
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return "", errors.New("empty host name")
	}
	if strings.HasSuffix(s, ".") {
		return "", errors.New("ends in two dots")
	}
	labels := strings.Split(s, ".")
	for i, l := range labels {
		if l == "" {
			return "", errors.New("has an empty label (two dots in a row, or a leading dot)")
		}
		if !utf8.ValidString(l) {
			return "", errors.New("is not valid UTF-8")
		}
		l = strings.ToLower(l)
		for _, r := range l {
			if r >= utf8.RuneSelf && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) && !unicode.Is(unicode.Mc, r) {
				return "", fmt.Errorf("has the character %s, which no host name may hold", strconv.QuoteRuneToASCII(r))
			}
		}
		a, err := toASCIILabel(l)
		if err != nil {
			return "", err
		}
		if len(a) > 63 {
			return "", fmt.Errorf("label %q is longer than 63 characters", elide(a, 20))
		}
		for j := 0; j < len(a); j++ {
			c := a[j]
			ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
			if !ok {
				return "", fmt.Errorf("has the character %s, which no host name may hold", strconv.QuoteRuneToASCII(rune(c)))
			}
		}
		if a[0] == '-' || a[len(a)-1] == '-' {
			return "", fmt.Errorf("label %q starts or ends with a hyphen", a)
		}
		labels[i] = a
	}
	name := strings.Join(labels, ".")
	if len(name) > 253 {
		return "", errors.New("is longer than 253 characters")
	}
	return name, nil
}

// NormalizeHost turns a host as a client sent it (from a CONNECT line, a
// URL, a SOCKS5 request) into the one form rules are matched against. It
// decodes percent-escapes, folds case and the trailing dot, converts IDN to
// punycode, and recognises every spelling of an IPv4 address that common
// resolvers accept ("2130706433", "0x7f.1", "127.1", "0177.0.0.1"), returning
// it as addr. For a name, addr is invalid.
func NormalizeHost(s string) (name string, addr netip.Addr, err error) {
	if a, perr := netip.ParseAddr(strings.Trim(s, "[]")); perr == nil && a.Zone() != "" {
		return "", netip.Addr{}, fmt.Errorf("host %q has a zone, which the proxy does not dial", elide(s, 60))
	}
	if strings.Contains(s, "%") {
		u, uerr := url.PathUnescape(s)
		if uerr != nil {
			return "", netip.Addr{}, fmt.Errorf("host %q has a broken percent-escape", elide(s, 60))
		}
		s = u
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
		a, perr := netip.ParseAddr(s)
		if perr != nil || !a.Is6() {
			return "", netip.Addr{}, fmt.Errorf("host %q is not an IPv6 address", elide(s, 60))
		}
		if a.Zone() != "" {
			return "", netip.Addr{}, fmt.Errorf("host %q has a zone, which the proxy does not dial", elide(s, 60))
		}
		return "", a.Unmap(), nil
	}
	if a, perr := netip.ParseAddr(s); perr == nil {
		if a.Zone() != "" {
			return "", netip.Addr{}, fmt.Errorf("host %q has a zone, which the proxy does not dial", elide(s, 60))
		}
		return "", a.Unmap(), nil
	}
	t := strings.TrimSuffix(s, ".")
	if isAddrSpelling(t) {
		a, ok := parseLooseIPv4(t)
		if !ok {
			return "", netip.Addr{}, fmt.Errorf("host %q looks like an address but is not one", elide(s, 60))
		}
		return "", a, nil
	}
	n, nerr := normalizeName(s)
	if nerr != nil {
		return "", netip.Addr{}, fmt.Errorf("host %q %v", elide(s, 60), nerr)
	}
	return n, netip.Addr{}, nil
}

// isAddrSpelling reports whether s would be read as an IPv4 address by a
// resolver: its last label is all digits or a hex number. No top-level
// domain is numeric, so such a name is an address or nothing.
func isAddrSpelling(s string) bool {
	s = strings.TrimSuffix(s, ".")
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X") {
		return strings.Trim(strings.ToLower(last[2:]), "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// parseLooseIPv4 parses the inet_aton spellings of an IPv4 address: one to
// four parts, each decimal, octal (leading 0) or hex (0x), the last part
// filling the remaining bytes.
func parseLooseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseInetNum(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var ip uint64
	for i := 0; i < len(vals)-1; i++ {
		if vals[i] > 255 {
			return netip.Addr{}, false
		}
		ip |= vals[i] << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	ip |= last
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}

func parseInetNum(p string) (uint64, bool) {
	if p == "" || len(p) > 12 {
		return 0, false
	}
	base := 10
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	v, err := strconv.ParseUint(p, base, 64)
	return v, err == nil && v <= 0xffffffff
}

// elide shortens s to about n runes, keeping both ends.
func elide(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2]) + "…" + string(r[len(r)-n/2:])
}
