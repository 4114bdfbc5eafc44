package node

import "testing"

func TestInboundPartitionsDefault(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want int
	}{
		{Config{}, 1},
		{Config{Cluster: true}, DefaultInboundPartitions},
		{Config{InboundPartitions: 3}, 3},
		{Config{Cluster: true, InboundPartitions: 1}, 1},
	} {
		if got := tc.cfg.inboundPartitions(); got != tc.want {
			t.Errorf("cluster %v, setting %d: %d partitions, want %d", tc.cfg.Cluster, tc.cfg.InboundPartitions, got, tc.want)
		}
	}
}
