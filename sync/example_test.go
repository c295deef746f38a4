package sync_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// How the controller wires the loop: a store fed by informers, the translator with its options,
// the Kong admin URLs; Notify from event handlers, Run once caches have synced.
func Example() {
	kong := kongdouble.New(kongdouble.Options{})
	defer kong.Close()

	st := store.New()
	loop, err := kongsync.New(kongsync.Config{
		Source:   st,
		Build:    translator.NewEngine(translator.DefaultOptions()).Build,
		Replicas: []string{kong.URL()},
		Logger:   logr.Discard(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- loop.Run(ctx) }()

	loop.Notify() // from informer handlers, after each store.Upsert / store.Delete

	select {
	case <-loop.ReadyC():
		fmt.Println("ready:", loop.Ready())
	case <-time.After(5 * time.Second):
		fmt.Println("not ready")
	}
	cancel()
	fmt.Println(<-done)
	// Output:
	// ready: true
	// <nil>
}
