// SPDX-License-Identifier: Apache-2.0

package agent

import (
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubeLabels: the node's labels from an API server over TLS, with
// the service account's CA and bearer token (read again at each call).
func TestKubeLabels(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-2" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/api/v1/nodes/node-a" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"kind":"Node","metadata":{"name":"node-a","labels":{"gotc.io/role":"edge","zone":"a"}}}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	must(t, os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "token"), []byte("tok-1\n"), 0o600))
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	t.Setenv("KUBERNETES_SERVICE_HOST", host)
	t.Setenv("KUBERNETES_SERVICE_PORT", port)

	labels, err := KubeLabels("node-a", dir)
	must(t, err)
	if _, err := labels(context.Background()); err == nil || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Errorf("with a stale token: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "token"), []byte("tok-2\n"), 0o600)) // rotated
	got, err := labels(context.Background())
	if err != nil || got["gotc.io/role"] != "edge" || got["zone"] != "a" || len(got) != 2 {
		t.Errorf("labels %v, %v", got, err)
	}
	other, err := KubeLabels("node-b", dir)
	must(t, err)
	if _, err := other(context.Background()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("another node: %v", err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if _, err := KubeLabels("node-a", dir); err == nil {
		t.Error("outside a pod: no error")
	}
}
