// SPDX-License-Identifier: Apache-2.0

package netlink_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/gotc/gotc/netlink"
)

// Open a process's network namespace by its pid (here this process's own)
// and look a device up through a connection there; a name that is not
// there is ErrNotFound. These need no privileges and run wherever the
// tests do; example_kernel_test.go has the ones that change qdiscs.
func ExampleOpenNetNSPid() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ns, err := netlink.OpenNetNSPid(os.Getpid())
	if err != nil {
		log.Fatal(err)
	}
	defer ns.Close()
	c, err := ns.Dial(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	lo, err := c.LinkIndex(ctx, "lo")
	fmt.Println("lo:", lo, err)
	_, err = c.LinkIndex(ctx, "nosuch0")
	fmt.Println(err, errors.Is(err, netlink.ErrNotFound))
	// Output:
	// lo: 1 <nil>
	// cannot find device "nosuch0" true
}
