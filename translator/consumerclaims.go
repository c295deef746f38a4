package translator

// Kong keeps some values unique across the whole configuration and rejects all of it
// otherwise: consumer usernames and custom_ids, key-auth and jwt keys, basic-auth and hmac-auth
// usernames, oauth2 client_ids. They are global names that any namespace can claim. KIC sends
// both consumers of a username (Kong then rejects the config) and skips every KongConsumer
// holding a credential value twice, so that a tenant can make another's consumer disappear by
// reusing its key. kongsync gives each value to the oldest KongConsumer holding it (by creation
// time, ties broken by "namespace/name": the claim order) and skips the younger ones, each with
// a problem naming the one that keeps it.
//
// A consumer is kept when none of its values is held by an older kept consumer; a skipped one
// claims nothing, so whether a consumer is kept depends on the older holders of its values
// only. Deciding changed consumers in claim order, and passing each change of a decision on to
// the younger holders of its values, decides every consumer a change reaches once. The kept
// holder of each value is looked up, never searched for, so that n consumers sharing a value
// cost O(n log n), not O(n²).

// claims decides the queued entries in claim order.
func (w *consumerWork) claims() {
	for e := w.queue.pop(); e != nil; e = w.queue.pop() {
		if !e.removed {
			w.decide(e)
		}
	}
}

// decide decides whether an entry keeps its values, every older holder being decided.
func (w *consumerWork) decide(e *consumerEntry) {
	st, c := w.st, e.obj
	was := e.kept
	e.kept, e.claim = false, nil
	byName, byID := st.olderOwner(e.nameKey, e), st.olderOwner(e.idKey, e)
	switch {
	case c.Username == "" && c.CustomID == "":
		e.claim = []Problem{newProblem(e.ref, "", "neither username nor custom_id is set; KongConsumer skipped")}
	case byName.e != nil:
		e.claim = []Problem{newProblem(e.ref, "username", "username %q is already used by the older %s; "+
			"KongConsumer skipped", c.Username, byName.e.ref)}
	case byID.e != nil:
		e.claim = []Problem{newProblem(e.ref, "custom_id", "custom_id %q is already used by the older %s; "+
			"KongConsumer skipped", c.CustomID, byID.e.ref)}
	default:
		st.ensurePiece(w.t, e)
		e.claim = st.credentialClaims(e)
		if e.kept = len(e.claim) == 0; !e.kept {
			st.stats.refusedCreds++
		}
	}
	w.touch(e)
	if e.kept == was {
		return
	}
	e.eachValue(func(k claimKey, i int) {
		switch {
		case e.kept:
			st.owners.set(k, valueHolder{e, i}) // a younger owner it displaces is among those pushed
		case st.owners.get(k).e == e:
			st.owners.delete(k)
		}
	})
	w.pushYounger(e)
}

// olderOwner is the kept holder of a global name when it is older than e; zero otherwise.
func (st *consumerStage) olderOwner(key claimKey, e *consumerEntry) valueHolder {
	if !key.set() {
		return valueHolder{}
	}
	if o := st.owners.get(key); o.e != nil && o.e != e && claimCompare(o.e, e) < 0 {
		return o
	}
	return valueHolder{}
}

// credentialClaims are the problems of an entry whose credential values older consumers hold:
// one on the KongConsumer and one on the Secret for each such credential, each naming the
// consumer that keeps the value (never the others: the text does not grow with the holders).
func (st *consumerStage) credentialClaims(e *consumerEntry) []Problem {
	var out []Problem
	for _, u := range e.p.val.creds {
		o := st.olderOwner(claimKey{spaceCredential, u.cred.ukey}, e)
		if o.e == nil {
			continue
		}
		what := globalNameKind(u.cred.ukey)
		out = append(out,
			newProblem(e.ref, u.field(), "the %s of %s is already used by the older %s (%s); "+
				"KongConsumer skipped", what, u.secret, o.e.ref, o.e.p.val.creds[o.i].secret),
			newProblem(u.secret, "", "%s is already used by the older %s; %s, which lists this Secret, "+
				"is skipped", what, o.e.ref, e.ref))
	}
	return out
}

// pushYounger queues the holders of e's values that are younger than e: the decision on e
// changed, and with it who keeps those values.
func (w *consumerWork) pushYounger(e *consumerEntry) {
	e.eachValue(func(k claimKey, _ int) {
		l := w.st.holders.get(k)
		for i := range l.len() {
			if h := l.at(i).e; h.queued != w.t.gen && claimCompare(e, h) < 0 {
				w.queue.push(w.t.gen, h)
				w.st.stats.cascades++
			}
		}
	})
}
