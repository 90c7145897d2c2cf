package spec

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
)

// LANRule is one entry of [network.lan] allow: an address range and an
// optional port.
type LANRule struct {
	Prefix netip.Prefix
	Port   uint16 // 0 means any port
	Text   string // the entry as written
}

// ParseLANRule parses an entry of [network.lan] allow: an address or CIDR,
// with an optional port ("10.0.0.0/8", "127.0.0.1:5432", "[::1]:8080").
func ParseLANRule(s string) (LANRule, error) {
	p, port, ok, err := parseAddrEntry(s)
	if err != nil {
		return LANRule{}, err
	}
	if !ok {
		return LANRule{}, fmt.Errorf("%q is not an address or CIDR range: name host names in network.hosts", s)
	}
	return LANRule{Prefix: p, Port: port, Text: s}, nil
}

// Contains reports whether the rule allows addr on port.
func (r LANRule) Contains(addr netip.Addr, port uint16) bool {
	return (r.Port == 0 || r.Port == port) && r.Prefix.Contains(addr.Unmap())
}

// parseAddrEntry parses "addr", "addr/bits", "addr:port", "[v6]:port" and
// "[v6]". ok is false when s is not an address at all (so it may be a
// name).
func parseAddrEntry(s string) (pfx netip.Prefix, port uint16, ok bool, err error) {
	host := s
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return pfx, 0, true, fmt.Errorf("%q has no closing bracket", s)
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return pfx, 0, true, fmt.Errorf("%q: only \":port\" may follow the brackets", s)
			}
			if port, err = parsePort(rest[1:]); err != nil {
				return pfx, 0, true, fmt.Errorf("%q: %v", s, err)
			}
		}
		if strings.Contains(host, "/") {
			return pfx, 0, true, fmt.Errorf("%q: write an IPv6 range without brackets, as \"fd00::/8\"", s)
		}
	} else if strings.Count(s, ":") == 1 {
		h, p, _ := strings.Cut(s, ":")
		if _, aerr := netip.ParseAddr(strings.SplitN(h, "/", 2)[0]); aerr != nil {
			return pfx, 0, false, nil
		}
		if port, err = parsePort(p); err != nil {
			return pfx, 0, true, fmt.Errorf("%q: %v", s, err)
		}
		host = h
	}
	if strings.Contains(host, "/") {
		pfx, err = netip.ParsePrefix(host)
		if err != nil {
			if _, aerr := netip.ParseAddr(strings.SplitN(host, "/", 2)[0]); aerr != nil {
				return pfx, 0, false, nil
			}
			return pfx, 0, true, fmt.Errorf("%q is not a valid CIDR range", s)
		}
		if pfx.Masked() != pfx {
			return pfx, 0, true, fmt.Errorf("%q has bits set past its prefix length: did you mean %q?", s, pfx.Masked().String())
		}
		if pfx.Addr().Zone() != "" {
			return pfx, 0, true, fmt.Errorf("%q has a zone, which rules do not take", s)
		}
		return netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-unmapBits(pfx.Addr())), port, true, nil
	}
	a, aerr := netip.ParseAddr(host)
	if aerr != nil {
		if strings.HasPrefix(s, "[") {
			return pfx, 0, true, fmt.Errorf("%q is not an IPv6 address", s)
		}
		return pfx, 0, false, nil
	}
	if a.Zone() != "" {
		return pfx, 0, true, fmt.Errorf("%q has a zone, which rules do not take", s)
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), port, true, nil
}

func unmapBits(a netip.Addr) int {
	if a.Is4In6() {
		return 96
	}
	return 0
}

// specialRange is a range of addresses that are not the internet.
type specialRange struct {
	prefix netip.Prefix
	why    string
}

// specialRanges are the addresses the proxy never dials unless
// [network.lan] names them: they reach this machine, its network, or a
// cloud's metadata service rather than the internet. Built on first use:
// every lnk process links this package, few of them dial.
var specialRanges = sync.OnceValue(func() []specialRange {
	return []specialRange{
		{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
		{netip.MustParsePrefix("10.0.0.0/8"), "private"},
		{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
		{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
		{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata lives here)"},
		{netip.MustParsePrefix("172.16.0.0/12"), "private"},
		{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
		{netip.MustParsePrefix("192.168.0.0/16"), "private"},
		{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
		{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
		{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
		{netip.MustParsePrefix("::/128"), "unspecified"},
		{netip.MustParsePrefix("::1/128"), "loopback"},
		{netip.MustParsePrefix("64:ff9b::/96"), "NAT64 (may reach any IPv4 address)"},
		{netip.MustParsePrefix("64:ff9b:1::/48"), "local NAT64"},
		{netip.MustParsePrefix("100::/64"), "discard"},
		{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
		{netip.MustParsePrefix("2002::/16"), "6to4 (may reach any IPv4 address)"},
		{netip.MustParsePrefix("fc00::/7"), "unique local"},
		{netip.MustParsePrefix("fe80::/10"), "link-local"},
		{netip.MustParsePrefix("fec0::/10"), "site-local"},
		{netip.MustParsePrefix("ff00::/8"), "multicast"},
	}
})

// SpecialAddr reports whether addr is not a public internet address
// (loopback, private, CGNAT, link-local, ULA, multicast, reserved, or an
// IPv6 form that embeds an IPv4 address), and which kind it is. IPv4-mapped
// IPv6 addresses are judged as the IPv4 address they carry.
func SpecialAddr(addr netip.Addr) (bool, string) {
	if !addr.IsValid() {
		return true, "invalid"
	}
	addr = addr.Unmap()
	if addr == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return true, "broadcast"
	}
	for _, r := range specialRanges() {
		if r.prefix.Contains(addr) {
			return true, r.why
		}
	}
	if addr.Is6() && !netip.MustParsePrefix("2000::/3").Contains(addr) {
		return true, "not global unicast"
	}
	return false, ""
}
