// SPDX-License-Identifier: Apache-2.0

// Package deploy's tests check the Kubernetes manifests and systemd units
// that run gotc-agent: each manifest decoded strictly by the Kubernetes
// API's own types, and the facts the agent relies on.
package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/apply"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// decode reads the YAML documents of a manifest, each strictly (an
// unknown or misspelt field, a key given twice, is an error) into the
// type its kind names.
func decode(t *testing.T, file string) []any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("kubernetes", file))
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var obj any
		switch meta.APIVersion + " " + meta.Kind {
		case "v1 ServiceAccount":
			obj = &corev1.ServiceAccount{}
		case "v1 ConfigMap":
			obj = &corev1.ConfigMap{}
		case "apps/v1 DaemonSet":
			obj = &appsv1.DaemonSet{}
		case "rbac.authorization.k8s.io/v1 ClusterRole":
			obj = &rbacv1.ClusterRole{}
		case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
			obj = &rbacv1.ClusterRoleBinding{}
		default:
			t.Fatalf("%s: a document of kind %q %q", file, meta.APIVersion, meta.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			t.Fatalf("%s: %s: %v", file, meta.Kind, err)
		}
		out = append(out, obj)
	}
	return out
}

// TestStrict: a misspelt field is an error, so that the other tests'
// decoding means something.
func TestStrict(t *testing.T) {
	var ds appsv1.DaemonSet
	if err := yaml.UnmarshalStrict([]byte("spec:\n  template:\n    spec:\n      hostNetwrk: true\n"), &ds); err == nil ||
		!strings.Contains(err.Error(), `unknown field "hostNetwrk"`) {
		t.Errorf("a misspelt field: %v", err)
	}
}

// TestManifests: the DaemonSet runs gotc-agent on the host's network with
// CAP_NET_ADMIN alone, on the mounted ConfigMap's file (a directory mount:
// a subPath is never updated), as the ServiceAccount that the RBAC lets
// read nodes, on every node; the ConfigMap's file is a good fleet file.
func TestManifests(t *testing.T) {
	ds := decode(t, "daemonset.yaml")[0].(*appsv1.DaemonSet)
	cm := decode(t, "configmap.yaml")[0].(*corev1.ConfigMap)
	rbac := decode(t, "rbac.yaml")
	sa, role, binding := rbac[0].(*corev1.ServiceAccount), rbac[1].(*rbacv1.ClusterRole), rbac[2].(*rbacv1.ClusterRoleBinding)

	pod := ds.Spec.Template.Spec
	if !pod.HostNetwork {
		t.Error("the pod is not on the host's network: it would shape its own veth")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Add, []corev1.Capability{"NET_ADMIN"}) ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("capabilities: %+v; want NET_ADMIN alone", sc)
	}
	if sc != nil && (sc.Privileged != nil && *sc.Privileged || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation) {
		t.Error("the container may gain privileges")
	}
	if ds.Spec.Selector == nil || ds.Spec.Selector.MatchLabels["app.kubernetes.io/name"] != ds.Spec.Template.Labels["app.kubernetes.io/name"] {
		t.Error("the selector does not select the pods")
	}
	if !slices.ContainsFunc(pod.Tolerations, func(t corev1.Toleration) bool { return t.Operator == corev1.TolerationOpExists && t.Key == "" }) {
		t.Error("no toleration of every taint: tainted nodes would go unshaped")
	}

	// The file argument is in the ConfigMap's mounted directory, under
	// one of its keys.
	file := c.Args[len(c.Args)-1]
	var mount *corev1.VolumeMount
	for i, m := range c.VolumeMounts {
		if path.Dir(file) == m.MountPath {
			mount = &c.VolumeMounts[i]
		}
	}
	if mount == nil {
		t.Fatalf("%s is in no mounted directory: %+v", file, c.VolumeMounts)
	}
	if mount.SubPath != "" || !mount.ReadOnly {
		t.Errorf("mount %+v: want a read-only directory", mount)
	}
	i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == mount.Name })
	if i < 0 || pod.Volumes[i].ConfigMap == nil || pod.Volumes[i].ConfigMap.Name != cm.Name || cm.Namespace != ds.Namespace {
		t.Fatalf("volume %q is not ConfigMap %s/%s", mount.Name, ds.Namespace, cm.Name)
	}
	data, ok := cm.Data[path.Base(file)]
	if !ok {
		t.Fatalf("ConfigMap %s has no %s", cm.Name, path.Base(file))
	}
	for _, node := range []apply.Node{{Name: "edge-1"}, {Name: "n", Labels: map[string]string{"gotc.io/shaper": "uplink"}}} {
		f, err := apply.LoadFleet("configmap.yaml", strings.NewReader(data), node)
		if err != nil || len(f.Devices) != 1 {
			t.Errorf("the ConfigMap's file for %v: %v, %v", node, f, err)
		}
	}

	// -node is the node's name, -kube-labels reads its labels as the
	// ServiceAccount, which may get nodes.
	if !slices.Contains(c.Args, "-node=$(NODE_NAME)") || !slices.Contains(c.Args, "-kube-labels") {
		t.Errorf("args %q lack -node=$(NODE_NAME) or -kube-labels", c.Args)
	}
	j := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "NODE_NAME" })
	if j < 0 || c.Env[j].ValueFrom == nil || c.Env[j].ValueFrom.FieldRef == nil || c.Env[j].ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Error("NODE_NAME is not the pod's spec.nodeName")
	}
	if pod.ServiceAccountName != sa.Name || sa.Namespace != ds.Namespace {
		t.Errorf("the pod runs as %q, the ServiceAccount is %s/%s", pod.ServiceAccountName, sa.Namespace, sa.Name)
	}
	if binding.RoleRef.Kind != "ClusterRole" || binding.RoleRef.Name != role.Name || len(binding.Subjects) != 1 ||
		binding.Subjects[0].Kind != "ServiceAccount" || binding.Subjects[0].Name != sa.Name || binding.Subjects[0].Namespace != sa.Namespace {
		t.Errorf("the binding %+v does not bind %s to %s", binding, sa.Name, role.Name)
	}
	if len(role.Rules) != 1 || !slices.Equal(role.Rules[0].Resources, []string{"nodes"}) || !slices.Equal(role.Rules[0].Verbs, []string{"get"}) ||
		!slices.Equal(role.Rules[0].APIGroups, []string{""}) {
		t.Errorf("the role %+v: want get on nodes and nothing else", role.Rules)
	}

	// The metrics port is the one -listen names, and the probe's.
	if !slices.Contains(c.Args, "-listen=:9979") || len(c.Ports) != 1 || c.Ports[0].ContainerPort != 9979 ||
		ds.Spec.Template.Annotations["prometheus.io/port"] != "9979" {
		t.Errorf("-listen, the port and the annotation differ: %q %+v", c.Args, c.Ports)
	}
	if p := c.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/metrics" || p.HTTPGet.Port.String() != c.Ports[0].Name {
		t.Error("the liveness probe is not the metrics port's /metrics")
	}
}

// TestUnits: the path unit starts the service on the file the service
// applies, and systemd-analyze verify, where it is, accepts both.
func TestUnits(t *testing.T) {
	svc, err := os.ReadFile("systemd/gotc-agent.service")
	if err != nil {
		t.Fatal(err)
	}
	pathUnit, err := os.ReadFile("systemd/gotc-agent.path")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svc), "\nExecStart=/usr/bin/gotc-agent -listen localhost:9979 /etc/gotc/tc.yaml\n") ||
		!strings.Contains(string(pathUnit), "\nPathExists=/etc/gotc/tc.yaml\nUnit=gotc-agent.service\n") {
		t.Error("the path unit does not watch the file the service applies")
	}
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("no systemd-analyze")
	}
	// verify checks that ExecStart's binary and the Documentation= pages
	// exist: gotc-agent built here, the service's copy pointing at it,
	// the pages written by mkman and found through MANPATH.
	dir := t.TempDir()
	for _, cmd := range [][]string{
		{"go", "build", "-o", dir, "./cmd/gotc-agent"},
		{"go", "run", "./internal/manual/mkman", "-o", filepath.Join(dir, "man")},
	} {
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Dir = ".." // the module's root, where mkman finds the packages' docs
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, out)
		}
	}
	svc = bytes.ReplaceAll(svc, []byte("/usr/bin/gotc-agent"), []byte(filepath.Join(dir, "gotc-agent")))
	if err := os.WriteFile(filepath.Join(dir, "gotc-agent.service"), svc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gotc-agent.path"), pathUnit, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("systemd-analyze", "verify", filepath.Join(dir, "gotc-agent.service"), filepath.Join(dir, "gotc-agent.path"))
	cmd.Env = append(os.Environ(), "MANPATH="+filepath.Join(dir, "man"))
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
