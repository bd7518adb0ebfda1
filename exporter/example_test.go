// SPDX-License-Identifier: Apache-2.0

package exporter_test

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/gotc/gotc/exporter"
)

// A "gotc exporter --listen ADDR" command: serve until SIGINT or SIGTERM,
// then shut down cleanly.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := exporter.New(exporter.Options{})
	defer c.Close()
	if err := exporter.Serve(ctx, "127.0.0.1:9977", c); err != nil {
		log.Fatal(err)
	}
}
