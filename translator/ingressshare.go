package translator

// mayShare is a quick superset of anyShared over every rule route: it compares the 64-bit
// hashes of the routes' match keys that their pieces computed, so a collision only sends the
// caller to the exact check. Its table of hashes is kept between builds: when only the pieces
// at a few positions changed and the last answer was "no", the old pieces' keys are taken out
// and the new ones' put in; otherwise it is counted afresh.
func (t *ingressBuild) mayShare(ps []*ingressPiece) bool {
	sh := &t.memos.share
	if !t.keep {
		sh = &shareTable{}
	}
	prev := sh.gen
	sh.gen = t.gen
	if t.keep && prev == t.gen-1 && len(ps) == len(sh.seq) {
		if sameSeq(ps, sh.seq) {
			return sh.answer
		}
		if sh.valid && !sh.answer && t.changed != nil {
			return sh.move(ps, t.changed)
		}
	}
	return sh.count(ps)
}

func sameSeq(a, b []*ingressPiece) bool {
	return len(a) == 0 || &a[0] == &b[0] || slicesEqual(a, b)
}

func slicesEqual(a, b []*ingressPiece) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// count counts every piece's keys afresh.
func (sh *shareTable) count(ps []*ingressPiece) bool {
	if sh.m == nil {
		sh.m = make(map[uint64]shareCount, len(ps)) // about one key per piece: no rehashing as it fills
	}
	clear(sh.m)
	sh.seq, sh.answer, sh.valid = ps, false, true
	for _, p := range ps {
		if !sh.add(p) {
			sh.answer, sh.valid = true, false
			break
		}
	}
	return sh.answer
}

// move replaces the pieces at the changed positions.
func (sh *shareTable) move(ps []*ingressPiece, changed []int) bool {
	for _, i := range changed {
		sh.remove(sh.seq[i])
	}
	sh.seq = ps
	for _, i := range changed {
		if !sh.add(ps[i]) {
			sh.answer, sh.valid = true, false
			return true
		}
	}
	return false
}

// add counts a piece's keys; false when one is claimed by another Kong service.
func (sh *shareTable) add(p *ingressPiece) bool {
	for i := range p.uses {
		u := &p.uses[i]
		var one [1]uint64
		for _, h := range u.hashes(&one) {
			c, ok := sh.m[h]
			if ok && c.id != u.be.ident {
				return false
			}
			sh.m[h] = shareCount{id: u.be.ident, n: c.n + 1}
		}
	}
	return true
}

// remove uncounts a piece's keys.
func (sh *shareTable) remove(p *ingressPiece) {
	for i := range p.uses {
		u := &p.uses[i]
		var one [1]uint64
		for _, h := range u.hashes(&one) {
			if c := sh.m[h]; c.n <= 1 {
				delete(sh.m, h)
			} else {
				sh.m[h] = shareCount{id: c.id, n: c.n - 1}
			}
		}
	}
}

// hashes returns the route's match-key hashes, the single one in one's storage.
func (u *ruleUse) hashes(one *[1]uint64) []uint64 {
	if u.nkeys == 1 {
		one[0] = u.key0
		return one[:]
	}
	return u.more
}
