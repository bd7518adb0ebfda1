// SPDX-License-Identifier: Apache-2.0

package watch_test

import (
	"context"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/watch"
)

// A "gotc watch" command: every second a JSON line per qdisc with deltas and
// rates, ten samples or until interrupted.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	conn, err := netlink.Dial(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	opts := watch.Options{Samples: 10, Deltas: true, Rates: true}
	if err := watch.Run(ctx, conn, netlink.DumpFilter{}, time.Second, os.Stdout, opts); err != nil {
		log.Fatal(err)
	}
}
