package translator

import (
	"slices"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// The consumers part of the document is a stage of assemble that keeps its state between
// builds, like the Ingress stages (ingressstage.go): at 10,000 KongConsumers, walking every consumer
// to find that one changed costs more than the change. Its decisions across consumers: the
// oldest KongConsumer claims each global name it holds, username, custom_id and credential
// values alike, and a younger holder of any of them is skipped (consumerclaims.go); the output
// is sorted by username and custom_id, as KIC's. The stage keeps the served consumers by name,
// the holders of each global name and the one that keeps it, and the output list, so that a
// change is followed to what it reaches:
//
//   - changed KongConsumers come from the snapshot diff (kindGens); changed Secrets reach the
//     consumers whose pieces read them through an index of those reads;
//   - a consumer whose claims changed passes the change on to the younger holders of its values,
//     in claim order;
//   - consumers entering or leaving the output are merged into the kept sorted list.
//
// A cold build is the same code with every served consumer changed. Whenever a change is not of
// a shape the stage can follow (more than maxDelta changed objects of a kind or consumers
// reached through the index, a kind its pieces read that it cannot index, the default class
// toggled), it starts over from the
// served consumers, reusing every piece whose reads are unchanged. The property tests compare
// every warm build with a cold one.

// translateConsumers builds the Kong consumers, credentials nested, of the KongConsumers this
// controller serves, and their consumer group memberships. Output order is KIC's deckgen order:
// by username, then custom_id, both ascending, a missing value first; memberships follow their
// consumers, each consumer's in its listed order (KIC's DB-less conversion).
func (t *consumerBuild) translateConsumers(groups *consumerGroupSet) consumerList {
	st := &t.memos.consumerStage
	w := &consumerWork{t: t, st: st, groups: groups}
	keys, ok := st.changedKeys(t)
	switch {
	case !ok:
		stats := st.stats
		st.rebuild(w)
		st.stats = stats
		st.stats.rebuilds++
	case len(keys) == 0 && groups == st.groups:
		st.replayProblems(t)
		st.gen = t.gen
		return st.list
	default:
		st.stats.patches++
		for _, k := range keys {
			st.replace(w, k)
		}
	}
	w.claims()
	st.output(w)
	st.replayProblems(t)
	st.gen, st.defaultClass, st.groups = t.gen, t.defaultClass, groups
	return st.list
}

// changedKeys lists the KongConsumers whose entries must be made again since the last build;
// false when the stage cannot follow what changed.
func (st *consumerStage) changedKeys(t *consumerBuild) ([][2]string, bool) {
	if !t.keep || st.gen == 0 || st.gen != t.gen-1 || st.defaultClass != t.defaultClass {
		return nil, false
	}
	k := t.kinds
	var keys [][2]string
	if i := kindIndex(store.KindKongConsumer); k.gen[i] > st.gen {
		if k.changes[i] == nil {
			return nil, false
		}
		for _, c := range k.changes[i] {
			o := c.versions()[0]
			keys = append(keys, [2]string{o.GetNamespace(), o.GetName()})
		}
	}
	mask := st.mask &^ kindBit(store.KindKongConsumer)
	if k.unchangedSince(mask, st.gen) {
		return keys, true
	}
	if st.unindexed {
		return nil, false
	}
	st.indexReaders()
	readers, ok := st.readers.changed(k, mask, st.gen, nil)
	if !ok || len(keys)+len(readers) > maxDelta { // a Secret many consumers list: starting over is linear
		return nil, false
	}
	for _, e := range readers {
		keys = append(keys, [2]string{e.obj.Namespace, e.obj.Name})
	}
	return keys, true
}

// rebuild starts the stage over from the served KongConsumers, reusing the pieces of the old
// entries whose object and reads are unchanged.
func (st *consumerStage) rebuild(w *consumerWork) {
	t := w.t
	old := st.byKey
	objs := t.snap.snap.Objects(store.KindKongConsumer)
	*st = consumerStage{
		byKey:   make(map[[2]string]*consumerEntry, len(objs)),
		holders: newClaimMaps[holderList](len(objs)),
		owners:  newClaimMaps[valueHolder](len(objs)),
	}
	for _, o := range objs {
		c, ok := o.(*configurationv1.KongConsumer)
		if !ok || !t.servesConsumer(c) {
			continue
		}
		e := st.add(w, c)
		if prev := old[[2]string{c.Namespace, c.Name}]; prev != nil && prev.obj == c && prev.p != nil &&
			t.reuse(&prev.p.checked, &prev.p.reads) {
			st.setPiece(e, prev.p)
		}
	}
}

// replace drops the entry of one KongConsumer and adds its current version, if served.
func (st *consumerStage) replace(w *consumerWork, key [2]string) {
	t := w.t
	old := st.byKey[key]
	if old != nil && old.touched == t.gen && !old.removed {
		return // already replaced in this build
	}
	if old != nil {
		st.remove(w, old)
	}
	o, ok := t.snap.snap.Get(store.Ref{Kind: store.KindKongConsumer, Namespace: key[0], Name: key[1]})
	c, isConsumer := o.(*configurationv1.KongConsumer)
	if !ok || !isConsumer || !t.servesConsumer(c) {
		return
	}
	e := st.add(w, c)
	if old != nil && old.obj == c && old.p != nil && t.reuse(&old.p.checked, &old.p.reads) {
		st.setPiece(e, old.p) // what it read changed, but not the answers it got
	}
}

// add makes the entry of a served KongConsumer and queues it for its claims.
func (st *consumerStage) add(w *consumerWork, c *configurationv1.KongConsumer) *consumerEntry {
	e := &consumerEntry{obj: c, ref: store.Ref{Kind: store.KindKongConsumer, Namespace: c.Namespace, Name: c.Name},
		plugins: c.Annotations[annPlugins] != ""}
	if w.t.keep { // only a next build looks entries up by name
		st.byKey[[2]string{c.Namespace, c.Name}] = e
	}
	if c.Username != "" {
		e.nameKey = claimKey{spaceUsername, c.Username}
	}
	if c.CustomID != "" {
		e.idKey = claimKey{spaceCustomID, c.CustomID}
	}
	st.addHolders(e, false)
	w.touch(e)
	w.queue.push(w.t.gen, e)
	return e
}

// remove takes an entry out of the stage, passing its claims on.
func (st *consumerStage) remove(w *consumerWork, e *consumerEntry) {
	c := e.obj
	delete(st.byKey, [2]string{c.Namespace, c.Name})
	if e.kept {
		e.eachValue(func(k claimKey, _ int) { st.owners.delete(k) })
		w.pushYounger(e)
	}
	st.removeHolders(e)
	if e.p != nil {
		st.readers.remove(e, &e.p.reads)
	}
	e.removed, e.kept = true, false
	w.touch(e)
}

// indexReaders builds the readers index from the entries' pieces, once.
func (st *consumerStage) indexReaders() {
	if st.readers.built() {
		return
	}
	st.readers.reset()
	for _, e := range st.byKey {
		st.indexEntry(e)
	}
}

// output merges the entries entering the output into the kept list, resolves memberships and
// makes the document's part.
func (st *consumerStage) output(w *consumerWork) {
	var in []*consumerEntry
	leaving := 0
	for _, e := range w.touched {
		now := e.kept && !e.removed
		switch {
		case e.inOut && !now:
			e.inOut, e.members, e.memberProbs = false, nil, nil
			leaving++
		case !e.inOut && now:
			e.inOut = true
			in = append(in, e)
		}
		st.trackProblems(e)
	}
	changed := leaving > 0 || len(in) > 0
	if changed {
		st.out = mergeOut(st.out, in, leaving)
	}
	resolve := in
	if w.groups != st.groups {
		resolve, changed = st.out, true
	}
	for _, e := range resolve {
		e.members, e.memberProbs = w.t.resolveMembers(e, w.groups)
		st.trackProblems(e)
	}
	if changed || st.gen == 0 {
		st.list = st.makeList()
	}
}

// mergeOut is old without the entries that left the output, merged with in (in any order).
// Runs of old between the changes are copied whole: the insertions are placed by binary search.
func mergeOut(old, in []*consumerEntry, leaving int) []*consumerEntry {
	cmp := func(a, b *consumerEntry) int { return consumerCompare(a.out, b.out) }
	slices.SortFunc(in, cmp)
	out := make([]*consumerEntry, 0, len(old)-leaving+len(in))
	from := 0
	for _, e := range in {
		at, _ := slices.BinarySearchFunc(old[from:], e, cmp)
		out = appendStaying(out, old[from:from+at])
		out = append(out, e)
		from += at
	}
	return appendStaying(out, old[from:])
}

// appendStaying appends the entries of run still in the output (the entries of in were not in
// old, so none of run is among them).
func appendStaying(out, run []*consumerEntry) []*consumerEntry {
	for len(run) > 0 {
		i := slices.IndexFunc(run, func(e *consumerEntry) bool { return !e.inOut })
		if i < 0 {
			return append(out, run...)
		}
		out = append(out, run[:i]...)
		run = run[i+1:]
	}
	return out
}

// makeList is the document's part made of the output list.
func (st *consumerStage) makeList() consumerList {
	l := consumerList{consumers: make([]*document.Consumer, len(st.out))}
	n := 0
	for _, e := range st.out {
		n += len(e.members)
	}
	l.members = make([]*document.ConsumerGroupConsumer, 0, n)
	for i, e := range st.out {
		l.consumers[i] = e.out
		l.members = append(l.members, e.members...)
		if e.plugins {
			l.plugins = append(l.plugins, e)
		}
	}
	return l
}

// trackProblems keeps withProblems to the entries that have problems.
func (st *consumerStage) trackProblems(e *consumerEntry) {
	has := e.problemCount() > 0
	switch {
	case has && e.probPos == 0:
		st.withProblems = append(st.withProblems, e)
		e.probPos = len(st.withProblems)
	case !has && e.probPos != 0:
		last := st.withProblems[len(st.withProblems)-1]
		st.withProblems[e.probPos-1], last.probPos = last, e.probPos
		st.withProblems = st.withProblems[:len(st.withProblems)-1]
		e.probPos = 0
	}
}

// replayProblems reports the problems of every entry that has some (assemble sorts them).
func (st *consumerStage) replayProblems(t *consumerBuild) {
	for _, e := range st.withProblems {
		t.problems = append(t.problems, e.claim...)
		if e.kept {
			t.problems = append(t.problems, e.p.problems...)
			t.problems = append(t.problems, e.memberProbs...)
		}
	}
}
