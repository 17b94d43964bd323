package opname

import "testing"

func TestFastAPI(t *testing.T) {
	for _, tc := range []struct{ id, method, path, want string }{
		{"get_request_info_request_info__request_id__get", "GET", "/request/info/{request_id}", "get_request_info"},
		{"storage_attach", "POST", "/storage/attach", "storage_attach"},
		{"list_items_api_v1_items__get", "get", "/api/v1/items/", "list_items"},
		{"login-login_access_token", "POST", "/api/v1/login/access-token", "login-login_access_token"},
		{"_request_info__request_id__get", "GET", "/request/info/{request_id}", "_request_info__request_id__get"}, // no name left
		{"read_x_x__x_id__put", "GET", "/x/{x_id}", "read_x_x__x_id__put"},                                        // another method
	} {
		if got := FastAPI(tc.id, tc.method, tc.path); got != tc.want {
			t.Errorf("FastAPI(%q, %s, %s) = %q, want %q", tc.id, tc.method, tc.path, got, tc.want)
		}
	}
}

func TestKeyTellsNamesApart(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"StorageDestroy", "storage_destroy", true},
		{"GetRequestInfo", "get_request_info", true},
		{"storageDestroy", "storage-destroy", true},
		{"StorageDestroy", "storage_attach", false},
		{"", "", true},
		{"Storage2", "storage_2", true},
	} {
		if got := Key(tc.a) == Key(tc.b); got != tc.want {
			t.Errorf("Key(%q) == Key(%q) is %t", tc.a, tc.b, got)
		}
	}
}
