package resolvers

import (
	"context"
	"regexp"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/models"
)

var (
	settingNamespaceRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	settingKeyRE       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
)

// maxSettingBytes bounds one setting's value.
const maxSettingBytes = 64 << 10

func (r *mutationResolver) PutStoreSetting(ctx context.Context, input graph.StoreSettingInput) (*models.StoreSettingRef, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	_, nsErr := matches("namespace", input.Namespace, settingNamespaceRE, "1 to 64 lower-case letters, digits, dots, dashes or underscores")
	_, keyErr := matches("key", input.Key, settingKeyRE, "1 to 128 letters, digits, dots, dashes or underscores")
	if err := firstErr(nsErr, keyErr, jsonSize("value", input.Value, maxSettingBytes)); err != nil {
		return nil, err
	}
	s := &models.StoreSetting{StoreID: sid, Namespace: input.Namespace, Key: input.Key, Value: input.Value}
	if err := models.PutSetting(ctx, r.DB, s); err != nil {
		return nil, err
	}
	audit.Note(ctx, "setting", input.Namespace+"."+input.Key)
	return &models.StoreSettingRef{Namespace: s.Namespace, Key: s.Key}, nil
}

func (r *queryResolver) StoreSettings(ctx context.Context, namespace *string, limit *int64, offset *int64) ([]models.StoreSetting, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	p, err := models.NewPage(limit, offset)
	if err != nil {
		return nil, err
	}
	return models.ListSettings(ctx, r.DB, sid, models.SettingFilter{Namespace: namespace}, p)
}

func (r *queryResolver) StoreSettingsCount(ctx context.Context, namespace *string) (int64, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return 0, err
	}
	return models.CountSettings(ctx, r.DB, sid, models.SettingFilter{Namespace: namespace})
}
