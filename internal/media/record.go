package media

import "storeadmin/models"

// Record is the store's record of an image it stored, for
// models.InsertMedia: an upload, the seed and a template bundle's import
// record their images alike. Its CreatedAt is left for the caller (zero:
// now).
func (img Image) Record(storeID int64) models.Media {
	return models.Media{StoreID: storeID, Key: img.Key, Src: img.Src, Filename: img.Filename, ContentType: img.ContentType,
		Width: int64(img.Width), Height: int64(img.Height), Thumbhash: img.Thumbhash, Bytes: img.Bytes}
}
