// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/containernetworking/cni/pkg/skel"
	"github.com/containernetworking/cni/pkg/types"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
	"github.com/containernetworking/plugins/pkg/ip"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/containernetworking/plugins/pkg/utils"
	vnl "github.com/vishvananda/netlink"

	"github.com/gotc/gotc"
	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/internal/manual"
)

// ifbPrefix and ifbNameLen make the ifb's name as the bandwidth plugin
// does, so that either plugin's DEL finds it: "bwp" and the start of the
// SHA-512 of the network's name and the container ID, 15 characters.
const (
	ifbPrefix  = "bwp"
	ifbNameLen = 15
	// aliasPrefix marks the ifbs gotc-cni made, which GC may delete.
	aliasPrefix = "gotc-cni "
	timeout     = 30 * time.Second
)

func ifbName(network, containerID string) string {
	return utils.MustFormatHashWithPrefix(ifbNameLen, ifbPrefix, network+containerID)
}

func main() {
	if len(os.Args) == 2 && manual.IsHelp(os.Args[1]) {
		fmt.Print(manual.CNI.Help())
		return
	}
	skel.PluginMainFuncs(skel.CNIFuncs{
		Add:    cmdAdd,
		Del:    cmdDel,
		Check:  cmdCheck,
		GC:     cmdGC,
		Status: cmdStatus,
	}, version.VersionsStartingFrom("0.3.0"), strings.TrimSpace(manual.CNI.Summary))
}

// hostInterface finds the host side of the container's veth, among the
// previous result's host interfaces, as the bandwidth plugin does.
func hostInterface(interfaces []*current.Interface, containerIf, netnsPath string) (*current.Interface, error) {
	if len(interfaces) == 0 {
		return nil, errors.New("no interfaces provided")
	}
	netns, err := ns.GetNS(netnsPath)
	if err != nil {
		return nil, fmt.Errorf("failed to open netns %q: %v", netnsPath, err)
	}
	defer netns.Close()
	var peer int
	_ = netns.Do(func(ns.NetNS) error {
		_, peer, err = ip.GetVethPeerIfindex(containerIf)
		return nil
	})
	if peer <= 0 {
		return nil, fmt.Errorf("container interface %s has no veth peer: %v", containerIf, err)
	}
	link, err := vnl.LinkByIndex(peer)
	if err != nil {
		return nil, fmt.Errorf("veth peer with index %d is not in host ns", peer)
	}
	for _, iface := range interfaces {
		if iface.Sandbox == "" && iface.Name == link.Attrs().Name {
			return iface, nil
		}
	}
	return nil, errors.New("no veth peer of container interface found in host ns")
}

// ensureIfb makes the ifb, up, with the host interface's MTU; one that
// exists (a repeated ADD) is kept when it is an ifb.
func ensureIfb(name, network, containerID, ifname string, mtu int) (net.HardwareAddr, error) {
	if l, err := vnl.LinkByName(name); err == nil {
		if l.Type() != "ifb" {
			return nil, fmt.Errorf("adding link: %s exists and is a %s, not an ifb", name, l.Type())
		}
		if l.Attrs().MTU != mtu {
			if err := vnl.LinkSetMTU(l, mtu); err != nil {
				return nil, fmt.Errorf("ifb %s: setting its MTU: %v", name, err)
			}
		}
		if err := vnl.LinkSetUp(l); err != nil {
			return nil, fmt.Errorf("ifb %s: setting it up: %v", name, err)
		}
		return l.Attrs().HardwareAddr, nil
	}
	// TxQLen 0, as the bandwidth plugin makes it.
	ifb := &vnl.Ifb{LinkAttrs: vnl.LinkAttrs{Name: name, Flags: net.FlagUp, MTU: mtu, TxQLen: 0}}
	if err := vnl.LinkAdd(ifb); err != nil {
		return nil, fmt.Errorf("adding link: %s", err)
	}
	l, err := vnl.LinkByName(name)
	if err != nil {
		return nil, err
	}
	if err := vnl.LinkSetAlias(l, aliasPrefix+network+"/"+containerID+"/"+ifname); err != nil {
		return nil, fmt.Errorf("ifb %s: setting its alias: %v", name, err)
	}
	return l.Attrs().HardwareAddr, nil
}

// deleteIfb deletes the ifb; one already gone is no error.
func deleteIfb(name string) error {
	l, err := vnl.LinkByName(name)
	if err != nil {
		var nf vnl.LinkNotFoundError
		if errors.As(err, &nf) {
			return nil
		}
		return err
	}
	if err := vnl.LinkDel(l); err != nil {
		return fmt.Errorf("deleting ifb %s: %v", name, err)
	}
	return nil
}

// kernel is the host namespace's traffic control, for apply.
func kernel() (apply.Kernel, func(), error) {
	c, err := gotc.Dial(nil)
	if err != nil {
		return nil, nil, err
	}
	return apply.KernelConn{Conn: c.Conn()}, func() { c.Close() }, nil
}

// reconcile applies f; check only compares, failing with the changes
// that would bring the kernel to f.
func reconcile(f *apply.File, check bool) error {
	k, done, err := kernel()
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	plan, err := apply.Compute(ctx, k, f)
	if err != nil {
		return err
	}
	if check {
		if cmds := plan.Commands(); len(cmds) > 0 {
			return fmt.Errorf("the traffic control state differs from the configuration; to repair it: %s", strings.Join(cmds, "; "))
		}
		return nil
	}
	_, err = plan.Run(ctx, k, nil)
	return err
}

func cmdAdd(args *skel.CmdArgs) error {
	conf, err := parseConf(args.StdinData)
	if err != nil {
		return err
	}
	if !conf.shapes() {
		return types.PrintResult(conf.PrevResult, conf.CNIVersion)
	}
	if conf.PrevResult == nil {
		return errors.New("must be called as chained plugin")
	}
	result, err := current.NewResultFromResult(conf.PrevResult)
	if err != nil {
		return fmt.Errorf("could not convert result to current version: %v", err)
	}
	host, err := hostInterface(result.Interfaces, args.IfName, args.Netns)
	if err != nil {
		return err
	}
	ifb := ifbName(conf.Name, args.ContainerID)
	if conf.shapesEgress() {
		hl, err := vnl.LinkByName(host.Name)
		if err != nil {
			return err
		}
		mac, err := ensureIfb(ifb, conf.Name, args.ContainerID, args.IfName, hl.Attrs().MTU)
		if err != nil {
			return err
		}
		result.Interfaces = append(result.Interfaces, &current.Interface{Name: ifb, Mac: mac.String()})
	}
	f, err := conf.desired(host.Name, ifb, tickInUsec())
	if err == nil {
		err = reconcile(f, false)
	}
	if err != nil {
		// Nothing half made stays: apply undid its changes; the ifb goes.
		if conf.shapesEgress() {
			_ = deleteIfb(ifb)
		}
		return err
	}
	return types.PrintResult(result, conf.CNIVersion)
}

func cmdCheck(args *skel.CmdArgs) error {
	conf, err := parseConf(args.StdinData)
	if err != nil {
		return err
	}
	if conf.PrevResult == nil {
		return errors.New("must be called as a chained plugin")
	}
	result, err := current.NewResultFromResult(conf.PrevResult)
	if err != nil {
		return fmt.Errorf("could not convert result to current version: %v", err)
	}
	host, err := hostInterface(result.Interfaces, args.IfName, args.Netns)
	if err != nil {
		return err
	}
	if !conf.shapes() {
		return nil
	}
	ifb := ifbName(conf.Name, args.ContainerID)
	if conf.shapesEgress() {
		if _, err := vnl.LinkByName(ifb); err != nil {
			return fmt.Errorf("get ifb device: %s", err)
		}
	}
	f, err := conf.desired(host.Name, ifb, tickInUsec())
	if err != nil {
		return err
	}
	return reconcile(f, true)
}

// cmdDel removes the ifb and, while the container's veth is there and the
// configuration shapes, the host side's qdiscs: whatever an ADD made, or began to make before it
// crashed. What is already gone is no error.
func cmdDel(args *skel.CmdArgs) error {
	conf, err := parseConf(args.StdinData)
	if err != nil {
		return err
	}
	if err := deleteIfb(ifbName(conf.Name, args.ContainerID)); err != nil {
		return err
	}
	if !conf.shapes() || conf.PrevResult == nil || args.Netns == "" {
		return nil // a configuration without shaping made nothing on the veth
	}
	result, err := current.NewResultFromResult(conf.PrevResult)
	if err != nil {
		return nil
	}
	host, err := hostInterface(result.Interfaces, args.IfName, args.Netns)
	if err != nil {
		return nil // the container's veth, and with it the host side, is gone
	}
	return reconcile(&apply.File{Devices: map[string]*apply.Device{host.Name: {}}}, false)
}

// cmdGC deletes the ifbs gotc-cni made for this network whose attachment
// is not among the valid ones.
func cmdGC(args *skel.CmdArgs) error {
	conf := &types.NetConf{}
	if err := json.Unmarshal(args.StdinData, conf); err != nil {
		return fmt.Errorf("failed to parse network configuration: %v", err)
	}
	valid := map[string]bool{}
	for _, a := range conf.ValidAttachments {
		valid[ifbName(conf.Name, a.ContainerID)] = true
	}
	links, err := vnl.LinkList()
	if err != nil {
		return err
	}
	var errs []error
	for _, l := range links {
		a := l.Attrs()
		if l.Type() != "ifb" || valid[a.Name] || !strings.HasPrefix(a.Name, ifbPrefix) || !strings.HasPrefix(a.Alias, aliasPrefix+conf.Name+"/") {
			continue
		}
		if err := vnl.LinkDel(l); err != nil {
			errs = append(errs, fmt.Errorf("deleting ifb %s: %v", a.Name, err))
		}
	}
	return errors.Join(errs...)
}

// cmdStatus reports the plugin ready when it can reach the kernel's
// traffic control.
func cmdStatus(args *skel.CmdArgs) error {
	if _, err := parseConf(args.StdinData); err != nil {
		return err
	}
	k, done, err := kernel()
	if err != nil {
		return notAvailable("no netlink connection to the kernel", err)
	}
	defer done()
	return ready(k)
}

// ready is STATUS's verdict on a kernel: it answers a dump of its devices.
func ready(k apply.Kernel) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if _, err := k.LinkNames(ctx); err != nil {
		return notAvailable("cannot read the kernel's devices", err)
	}
	return nil
}

// notAvailable is STATUS's error when ADD cannot be served: CNI 1.1's
// code 50, which a runtime tells from a plugin's other failures.
func notAvailable(msg string, err error) error {
	return types.NewError(types.ErrPluginNotAvailable, msg, err.Error())
}
