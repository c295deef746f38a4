package atc

// ipShape measures the IP literal at the start of s as Kong's grammar does, trying an IPv4
// network, an IPv6 network, an IPv4 address and an IPv6 address in that order. Each shape is
// matched greedily without backtracking, as PEG repetitions are; whether the text is a valid
// address is decided afterwards. n is 0 when no shape matches.
func ipShape(s string) (n int, kind Type) {
	if v4 := ipv4Shape(s); v4 > 0 {
		if bits := prefixBits(s[v4:], 2); bits > 0 {
			return v4 + bits, TypeIPCIDR
		}
	}
	v6 := ipv6Shape(s)
	if v6 > 0 {
		if bits := prefixBits(s[v6:], 3); bits > 0 {
			return v6 + bits, TypeIPCIDR
		}
	}
	if v4 := ipv4Shape(s); v4 > 0 {
		return v4, TypeIPAddr
	}
	if v6 > 0 {
		return v6, TypeIPAddr
	}
	return 0, 0
}

// ipv4Shape matches 1-3 digits, then three times a dot and 1-3 digits.
func ipv4Shape(s string) int {
	n := 0
	for part := 0; part < 4; part++ {
		if part > 0 {
			if n >= len(s) || s[n] != '.' {
				return 0
			}
			n++
		}
		d := upTo(s[n:], 3, isDigit)
		if d == 0 {
			return 0
		}
		n += d
	}
	return n
}

// ipv6Shape matches (':' or 1-4 hex digits), then ':', then any run of 1-4 hex digit groups
// and colons.
func ipv6Shape(s string) int {
	n := 0
	if len(s) > 0 && s[0] == ':' {
		n = 1
	} else if n = upTo(s, 4, isHex); n == 0 {
		return 0
	}
	if n >= len(s) || s[n] != ':' {
		return 0
	}
	n++
	for n < len(s) {
		if s[n] == ':' {
			n++
			continue
		}
		h := upTo(s[n:], 4, isHex)
		if h == 0 {
			break
		}
		n += h
	}
	return n
}

// prefixBits matches '/' and 1 to max digits, returning the length matched or 0.
func prefixBits(s string, max int) int {
	if len(s) < 2 || s[0] != '/' {
		return 0
	}
	if d := upTo(s[1:], max, isDigit); d > 0 {
		return 1 + d
	}
	return 0
}

// upTo is the length of the prefix of s, at most max bytes, whose bytes satisfy ok.
func upTo(s string, max int, ok func(byte) bool) int {
	n := 0
	for n < len(s) && n < max && ok(s[n]) {
		n++
	}
	return n
}
