package translator

import "slices"

// An entry's piece: computed when the entry is first kept, its reads indexed, and the global
// names it holds (username, custom_id, credential values) added to the holder lists.

// ensurePiece computes the entry's piece the first time it is kept. Its problems are kept
// with it and reported with the entry's other problems.
func (st *consumerStage) ensurePiece(t *consumerBuild, e *consumerEntry) {
	if e.p != nil {
		return
	}
	before := len(t.problems)
	var p *entry[*consumerPiece]
	if t.keep {
		p = record(t.translation, func() *consumerPiece { return t.consumerPieceOf(e.obj, e.ref) })
	} else { // nothing is kept for a next build: no reads to record, no entry of its own
		p = &e.own
		p.val = t.consumerPieceOf(e.obj, e.ref)
		p.problems = slices.Clone(t.problems[before:])
	}
	t.problems = t.problems[:before]
	st.setPiece(e, p)
}

// setPiece gives an entry its piece.
func (st *consumerStage) setPiece(e *consumerEntry, p *entry[*consumerPiece]) {
	e.p, e.out = p, p.val.out
	st.mask |= p.reads.mask
	st.addHolders(e, true)
	st.indexEntry(e)
}

// addHolders adds the entry's values to the holder lists: its names when added, its credential
// values when its piece is set.
func (st *consumerStage) addHolders(e *consumerEntry, creds bool) {
	e.eachValue(func(k claimKey, i int) {
		if (i >= 0) == creds {
			st.holders.set(k, st.holders.get(k).add(valueHolder{e, i}))
		}
	})
}

// removeHolders takes the entry out of the holder lists.
func (st *consumerStage) removeHolders(e *consumerEntry) {
	e.eachValue(func(k claimKey, _ int) {
		fewRemove(st.holders[k.space], k.v, func(h valueHolder) bool { return h.e == e })
	})
}

// indexEntry adds an entry's piece reads to the readers index, if there is one.
func (st *consumerStage) indexEntry(e *consumerEntry) {
	if e.p == nil {
		return
	}
	if len(e.p.reads.lists)+len(e.p.reads.kinds) > 0 {
		st.unindexed = true
	}
	if st.readers.built() {
		st.readers.add(e, &e.p.reads)
	}
}
