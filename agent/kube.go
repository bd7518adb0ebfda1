// SPDX-License-Identifier: Apache-2.0

package agent

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ServiceAccountDir is where Kubernetes mounts a pod's service account:
// its token and the cluster's CA.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// KubeLabels returns a reader of the labels of the Kubernetes node called
// node, from the API server the pod's environment names
// (KUBERNETES_SERVICE_HOST and _PORT), with the service account in dir
// (ServiceAccountDir): GET /api/v1/nodes/NODE, which the DaemonSet's
// ClusterRole allows ("get" on "nodes"). The token is read at each call,
// for the kubelet rotates it.
func KubeLabels(node, dir string) (func(context.Context) (map[string]string, error), error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("not in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset")
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s: no certificate", filepath.Join(dir, "ca.crt"))
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	u := "https://" + net.JoinHostPort(host, port) + "/api/v1/nodes/" + url.PathEscape(node)
	return func(ctx context.Context) (map[string]string, error) {
		token, err := os.ReadFile(filepath.Join(dir, "token"))
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
		}
		var n struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&n); err != nil {
			return nil, fmt.Errorf("GET %s: %w", u, err)
		}
		return n.Metadata.Labels, nil
	}, nil
}
