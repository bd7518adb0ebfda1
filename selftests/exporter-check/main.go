// SPDX-License-Identifier: Apache-2.0

// Command exporter-check tests "gotc exporter" end to end on the test bed's
// kernel: it sets up CAKE, DualPI2, fq_codel and a kind gotc does not know
// (sfq) on dummy devices, starts "gotc exporter listen 127.0.0.1:PORT" (gotc
// replaces itself with the gotc-exporter built beside it), scrapes it over
// HTTP on loopback, parses the answer with prometheus/common's text
// format parser and checks the metrics of all four kinds; it prints
// "N passed, M failed". Run it in the VM:
//
//	selftests/vm/run --build ./selftests/exporter-check -- /gotc/bin/exporter-check
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var (
	gotcPath = flag.String("gotc", "/gotc/bin/gotc", "gotc")
	tcPath   = flag.String("tc", "/ref/bin/tc", "reference tc, for the setup")
	ipPath   = flag.String("ip", "/ref/bin/ip", "reference ip, for the setup")
	addr     = flag.String("listen", "127.0.0.1:9978", "address the exporter listens on")
)

var passed, failed int

func check(ok bool, format string, args ...any) {
	mark := "PASS"
	if ok {
		passed++
	} else {
		failed++
		mark = "FAIL"
	}
	fmt.Printf("%s %s\n", mark, fmt.Sprintf(format, args...))
}

func must(path string, args ...string) {
	if out, err := exec.Command(path, args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "exporter-check: %s %s: %v\n%s", path, strings.Join(args, " "), err, out)
		os.Exit(1)
	}
}

func main() {
	flag.Parse()
	must(*ipPath, "link", "set", "lo", "up")
	for dev, qdisc := range map[string][]string{
		"e0": {"cake", "bandwidth", "100mbit", "diffserv4"},
		"e1": {"dualpi2"},
		"e2": {"fq_codel"},
		"e3": {"sfq"},
	} {
		must(*ipPath, "link", "add", dev, "type", "dummy")
		must(*tcPath, append([]string{"qdisc", "add", "dev", dev, "root", "handle", "1:"}, qdisc...)...)
	}

	cmd := exec.Command(*gotcPath, "exporter", "listen", *addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "exporter-check:", err)
		os.Exit(1)
	}
	// finish exits: stop the exporter first, or it would keep the VM's
	// console open.
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}

	body, ctype, err := scrape("http://" + *addr + "/metrics")
	check(err == nil, "scrape over loopback: %v", err)
	if err != nil {
		finish()
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid))
	check(err == nil && filepath.Base(exe) == "gotc-exporter", "gotc's process serves as gotc-exporter (%s): %v", exe, err)
	check(strings.HasPrefix(ctype, "text/plain"), "content type %q is the text format", ctype)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	check(err == nil, "prometheus/common's text parser accepts the scrape (%d families): %v", len(families), err)

	// find returns the samples of a family for one device.
	find := func(name, dev string) []*dto.Metric {
		var out []*dto.Metric
		if f := families[name]; f != nil {
			for _, m := range f.Metric {
				if label(m, "dev") == dev {
					out = append(out, m)
				}
			}
		}
		return out
	}
	for dev, kind := range map[string]string{"e0": "cake", "e1": "dualpi2", "e2": "fq_codel", "e3": "sfq"} {
		ms := find("gotc_qdisc_packets_total", dev)
		check(len(ms) == 1 && label(ms[0], "kind") == kind && label(ms[0], "handle") == "1:" && label(ms[0], "parent") == "root",
			"%s: generic counters of its %s qdisc, labelled kind, handle 1:, parent root (%d samples)", dev, kind, len(ms))
		if f := families["gotc_qdisc_packets_total"]; f != nil {
			check(f.GetType() == dto.MetricType_COUNTER, "gotc_qdisc_packets_total is a counter")
		}
		check(len(find("gotc_qdisc_backlog_bytes", dev)) == 1, "%s: backlog gauge", dev)
	}
	tins := find("gotc_cake_tin_sent_packets_total", "e0")
	check(len(tins) == 4, "cake diffserv4: one sample per tin (%d)", len(tins))
	if len(tins) > 0 {
		check(label(tins[0], "tin_name") != "", "cake tins are named (%q)", label(tins[0], "tin_name"))
	}
	check(len(find("gotc_cake_memory_limit_bytes", "e0")) == 1, "cake: memory limit gauge")
	check(len(find("gotc_dualpi2_probability", "e1")) == 1, "dualpi2: probability gauge")
	check(len(find("gotc_dualpi2_memory_limit_bytes", "e1")) == 1, "dualpi2: memory limit gauge")
	// fq_codel's statistics come from its kind's table alone.
	check(len(find("gotc_fq_codel_new_flows_total", "e2")) == 1, "fq_codel: new flows counter")
	check(len(find("gotc_fq_codel_old_flows", "e2")) == 1, "fq_codel: old flows gauge")
	// Each kind exports the generic statistics and its own, nothing of
	// another kind's; the unknown kind only the generic ones.
	var leaked []string
	for name := range families {
		for dev, own := range map[string]string{"e0": "gotc_cake_", "e1": "gotc_dualpi2_", "e2": "gotc_fq_codel_", "e3": "-"} {
			for _, prefix := range []string{"gotc_cake_", "gotc_dualpi2_", "gotc_fq_codel_"} {
				if prefix != own && strings.HasPrefix(name, prefix) && len(find(name, dev)) > 0 {
					leaked = append(leaked, dev+":"+name)
				}
			}
		}
	}
	check(len(leaked) == 0, "no kind's metrics on another kind's qdisc, none of a kind's on sfq (unknown to gotc) %v", leaked)
	ok := families["gotc_exporter_scrape_success"]
	check(ok != nil && len(ok.Metric) == 1 && ok.Metric[0].GetGauge().GetValue() == 1, "gotc_exporter_scrape_success is 1")
	finish()
}

// stop ends the exporter.
var stop = func() {}

func finish() {
	stop()
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
	os.Exit(0)
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// scrape fetches url, retrying while the exporter starts.
func scrape(url string) (string, string, error) {
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var resp *http.Response
		if resp, err = http.Get(url); err != nil {
			continue
		}
		b, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", "", fmt.Errorf("HTTP %s", resp.Status)
		}
		return string(b), resp.Header.Get("Content-Type"), rerr
	}
	return "", "", err
}
