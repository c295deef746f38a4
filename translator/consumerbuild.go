package translator

// consumerBuild is the consumer family's view of one build: the build context and the memos
// the family keeps, which assemble hands it.
type consumerBuild struct {
	*translation
	memos *consumerMemos
}

// consumerMemos are what the consumer family keeps between builds.
type consumerMemos struct {
	consumerStage  consumerStage                  // translateConsumers' state
	consumerGroups *memo[bool, *consumerGroupSet] // consumerGroups, whole
}

// consumerWork is one build's pass over the stage: what it touched and what it still has to
// decide.
type consumerWork struct {
	t       *consumerBuild
	st      *consumerStage
	groups  *consumerGroupSet // this build's served groups, which memberships resolve against
	queue   claimQueue
	touched []*consumerEntry // whose output state may have changed
}

// touch notes that an entry's output state may have changed in this build.
func (w *consumerWork) touch(e *consumerEntry) {
	if e.touched != w.t.gen {
		e.touched = w.t.gen
		w.touched = append(w.touched, e)
	}
}
