// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotc/gotc/internal/hostns"
	"github.com/gotc/gotc/traffic"
)

// TestRecord records datagrams arriving on a namespace's loopback with
// "gotc-traffic record" and reads the pcap back: each datagram once (lo
// shows a packet socket every frame twice, outgoing and incoming; only
// the arrival counts), snapped to its headers with its true length.
func TestRecord(t *testing.T) {
	ns := hostns.New(t, "rec")
	if out, err := exec.Command("ip", "-n", ns, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("lo up: %v: %s", err, out)
	}
	out := filepath.Join(t.TempDir(), "lo.pcap")
	var summary bytes.Buffer
	done := make(chan error, 1)
	go func() {
		var stdout bytes.Buffer
		done <- run([]string{"record", "-netns", ns, "-dev", "lo", "-count", "3", "-duration", "20s", "-snap", "64", "-out", out}, &stdout, &summary)
	}()
	// The recorder's socket is bound at some moment after the start:
	// send until it has its three frames.
	var recErr error
	sendErr := traffic.InNetns(ns, func() error {
		sink, err := net.ListenPacket("udp4", "127.0.0.1:7777") // no ICMP port unreachable
		if err != nil {
			return err
		}
		defer sink.Close()
		c, err := net.Dial("udp4", "127.0.0.1:7777")
		if err != nil {
			return err
		}
		defer c.Close()
		for {
			if _, err := c.Write(make([]byte, 300)); err != nil {
				return err
			}
			select {
			case recErr = <-done:
				return nil
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	if sendErr != nil {
		t.Fatal(sendErr)
	}
	if recErr != nil {
		t.Fatal(recErr)
	}
	if !strings.Contains(summary.String(), "recorded 3 frames, 1026 bytes, 0 lost, on lo") {
		t.Errorf("summary %q", summary.String())
	}
	recs, err := traffic.ReadPcapFile(out, traffic.PcapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	for _, r := range recs {
		if r.Proto != 17 || r.DPort != 7777 || r.Len != 14+20+8+300 || r.Payload != 300 {
			t.Errorf("record %+v", r)
		}
	}
	if err := run([]string{"record", "-dev", "lo"}, &summary, &summary); !errors.Is(err, errUsage) {
		t.Errorf("no -out: %v", err)
	}
	if err := run([]string{"record", "-dev", "lo", "-out", out, "-snap", "10"}, &summary, &summary); !errors.Is(err, errUsage) {
		t.Errorf("-snap 10: %v", err)
	}
}
