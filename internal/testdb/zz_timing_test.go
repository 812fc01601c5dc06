package testdb

import (
	"sort"
	"testing"
	"time"
)

func TestZZTiming(t *testing.T) {
	New(t)
	var news, drops []time.Duration
	for i := 0; i < 21; i++ {
		var cleanupStart time.Time
		t.Run("x", func(t *testing.T) {
			s := time.Now()
			New(t)
			news = append(news, time.Since(s))
			t.Cleanup(func() { cleanupStart = time.Now() }) // LIFO: runs just before the drop
		})
		drops = append(drops, time.Since(cleanupStart))
	}
	sort.Slice(news, func(i, j int) bool { return news[i] < news[j] })
	sort.Slice(drops, func(i, j int) bool { return drops[i] < drops[j] })
	t.Logf("New: median %v min %v max %v; cleanup: median %v", news[10], news[0], news[20], drops[10])
}
