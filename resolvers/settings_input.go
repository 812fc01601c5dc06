package resolvers

import "regexp"

var (
	settingNamespaceRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	settingKeyRE       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
)

// maxSettingBytes bounds one setting's value.
const maxSettingBytes = 64 << 10
