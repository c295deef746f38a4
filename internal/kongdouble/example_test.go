package kongdouble_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// A typical test: start a double, let the code under test post to it, wait for the config,
// inject a fault, and look at what was sent.
func Example() {
	kong := kongdouble.New(kongdouble.Options{})
	defer kong.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	// The code under test would do this.
	post := func() int {
		body := `{"config": "{\"_format_version\":\"3.0\",\"services\":[{\"name\":\"s\",\"host\":\"example.com\"}]}"}`
		resp, err := http.Post(kong.URL()+"/config?check_hash=1&flatten_errors=1", "application/json", strings.NewReader(body))
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	fmt.Println(post())
	_ = kong.WaitPosts(ctx, 1)
	fmt.Println(kong.Hash() != kongdouble.EmptyHash)
	fmt.Println(post()) // same config string: 304

	kong.SetNextResponse(http.StatusTooManyRequests, "1")
	fmt.Println(post())

	kong.Restart() // forgets the config, same URL
	fmt.Println(kong.Hash() == kongdouble.EmptyHash)
	fmt.Println(len(kong.Posts()), kong.Posts()[2].Status)
	// Output:
	// 201
	// true
	// 304
	// 429
	// true
	// 3 429
}
