package media

import (
	"bytes"
	"context"
	"testing"

	"storeadmin/internal/base/apperr"
)

// TestReadImage: a store reads back its own images by key, never another
// store's; KeyOf finds the key of a src of the store; DeleteImages takes
// back a store's images and leaves other stores' alone.
func TestReadImage(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	data := pngBytes(t, 6, 4)
	img, err := e.m.PutImage(ctx, 7, "mug.png", data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.m.ReadImage(ctx, 7, img.Key)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadImage: %v", err)
	}
	_, err = e.m.ReadImage(ctx, 8, img.Key)
	wantCode(t, err, apperr.NotFound)
	_, err = e.m.ReadImage(ctx, 7, "downloads/7/1/x/y.png")
	wantCode(t, err, apperr.NotFound)

	if key, ok := e.m.KeyOf(7, img.Src); !ok || key != img.Key {
		t.Fatalf("KeyOf: %q %v", key, ok)
	}
	if _, ok := e.m.KeyOf(8, img.Src); ok {
		t.Fatal("KeyOf found another store's image")
	}

	e.m.DeleteImages(ctx, 8, []string{img.Key})
	if !exists(t, e.m, img.Key) {
		t.Fatal("another store deleted the image")
	}
	e.m.DeleteImages(ctx, 7, []string{img.Key})
	if exists(t, e.m, img.Key) {
		t.Fatal("the image is still there")
	}
	_, err = e.m.ReadImage(ctx, 7, img.Key)
	wantCode(t, err, apperr.NotFound)
}
