package dwarfschema

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/testprogs"
)

// keyTags are the tags each manifest key variable must have (at least),
// from reading the programs' sources and gcc -O2 code. A key variable not
// listed must survive Load with some tag (or be a global).
var keyTags = map[[3]string]model.Tags{
	{"recovery_budget", "#global", "recv_n_pool_free_frames"}:                                           model.TagCond,
	{"recovery_budget", "#global", "srv_buf_pool_instances"}:                                            model.TagCond,
	{"recovery_budget", "recv_group_scan_log_recs", "start_lsn"}:                                        model.TagCond,
	{"lru_scan", "buf_LRU_free_from_common_LRU_list", "scanned"}:                                        model.TagLoop | model.TagCond,
	{"lru_scan", "buf_LRU_free_from_common_LRU_list", "bpage"}:                                          model.TagLoop | model.TagCond,
	{"lru_scan", "#global", "srv_data_pages"}:                                                           model.TagCond,
	{"killpg_poll", "ap_mpm_pod_killpg", "i"}:                                                           model.TagLoop | model.TagCond,
	{"killpg_poll", "ap_mpm_pod_killpg", "num"}:                                                         model.TagCond,
	{"killpg_poll", "#global", "ap_max_requests_per_child"}:                                             model.TagCond,
	{"discard_body", "dumpio_input_filter", "ret"}:                                                      model.TagCond | model.TagArgs,
	{"discard_body", "dumpio_input_filter", "readbytes"}:                                                model.TagArgs,
	{"discard_body", "ap_discard_request_body", "rv"}:                                                   model.TagCond,
	{"discard_body", "#global", "client_stall_every"}:                                                   model.TagCond,
	{"blocked_clients", "serveClientsBlockedOnKeyByModule", "numclients"}:                               model.TagLoop | model.TagCond,
	{"blocked_clients", "#global", "n_workers"}:                                                         model.TagCond,
	{"vhost_lookup", "ap_find_command_in_modules", "modp"}:                                              model.TagLoop | model.TagCond,
	{"vhost_lookup", "ap_find_command_in_modules", "cmd_name"}:                                          model.TagArgs,
	{"cluster_nodes", "clusterGenNodesDescription", "node"}:                                             model.TagCond | model.TagArgs,
	{"cluster_nodes", "clusterGenNodeDescription", "j"}:                                                 model.TagLoop | model.TagCond,
	{"cluster_nodes", "clusterGenNodeDescription", "start"}:                                             model.TagCond,
	{"cluster_nodes", "#global", "cluster_size"}:                                                        model.TagCond,
	{"cascade_delete", "_ZN6innodb26row_upd_del_mark_clust_recEPNS_10upd_node_tEPNS_5trx_tE", "parent"}: model.TagCond,
	{"cascade_delete", "_ZN6innodb26row_upd_del_mark_clust_recEPNS_10upd_node_tEPNS_5trx_tE", "node"}:   model.TagCond,
	{"dict_status", "_ZN6innodb10dict_sys_t8get_sizeEv", "table"}:                                       model.TagLoop | model.TagCond,
	{"dict_status", "#global", "srv_n_tables"}:                                                          model.TagArgs,
	{"healthcheck", "hc_watchdog_callback", "now"}:                                                      model.TagCond,
	{"healthcheck", "#global", "hc_slow_backend_size"}:                                                  model.TagCond,
	{"var_range", "get_actual_variable_range", "page"}:                                                  model.TagLoop | model.TagCond,
	{"var_range", "get_actual_variable_range", "i"}:                                                     model.TagLoop | model.TagCond,
	{"var_range", "#global", "n_dead_tail"}:                                                             model.TagCond,
	// The erase loop's bound is the vector's begin and end behind this;
	// consumed counts its iterations (D96).
	{"gpu_query_erase", "_ZN5Lumix11GPUProfiler5frameEv", "consumed"}: model.TagLoop | model.TagCond,
}

// keyGaps are key variables the binary alone cannot tag (method.md §2:
// tags come from the machine code and DWARF): the test only logs them.
var keyGaps = map[[3]string]string{
	{"recovery_budget", "recv_group_scan_log_recs", "available_mem"}: "gcc -O2 keeps no location for it (one empty location-list entry)",
	{"discard_body", "ap_discard_request_body", "seen_eos"}:          "gcc -O2 turns it into control flow: its only locations are constants",
	{"utf_lexer", "php_pcre_match_impl", "options"}:                  "gcc -O2 keeps no storage for it: its locations are expressions on pce->compile_options (DW_OP_stack_value) over the instructions that set up the pcre2_match call",
	{"dict_status", "_ZN6innodb10dict_sys_t8get_sizeEv", "size"}:     "an accumulator: updated in the loop, but in no condition, call or exit test",
	{"healthcheck", "hc_check", "now"}:                               "only stored",
	{"var_range", "get_actual_variable_range", "tid"}:                "gcc -O2 keeps no location for it (loaded straight into rdi)",
}

// TestKeyVariableTags checks the tags of the manifest's key variables on
// the built test programs: each gets its tags and survives Load's drop of
// untagged locals, with a location.
func TestKeyVariableTags(t *testing.T) {
	progs, err := testprogs.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			s, err := Load(testprogs.Path(t, p.Name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range p.KeyVariables {
				key := [3]string{p.Name, k.Function, k.Name}
				if why, ok := keyGaps[key]; ok {
					t.Logf("%s %s: not tagged: %s", k.Function, k.Name, why)
					continue
				}
				vars := keyVars(s, k.Function, k.Name)
				if len(vars) == 0 {
					t.Errorf("%s %s: not in the schema", k.Function, k.Name)
					continue
				}
				var tags model.Tags
				locs := 0
				for _, v := range vars {
					tags |= s.Vars[v].Tags
					// A field behind a pointer is read wherever its
					// pointer is: its locations are the pointer's.
					at := v
					if f := s.Vars[v].Field; f != nil && f.Deref {
						at = f.Of
					}
					for _, l := range s.Locs {
						if l.Var == at && l.Kind != model.LocConst {
							locs++
						}
					}
				}
				want, listed := keyTags[key]
				if !listed && k.Function != model.GlobalFunc {
					want = tags
					if tags == 0 {
						t.Errorf("%s %s: no tag", k.Function, k.Name)
					}
				}
				if tags&want != want {
					t.Errorf("%s %s: tags %q, want at least %q", k.Function, k.Name, tags, want)
				}
				switch {
				case locs == 0 && k.Function == model.GlobalFunc:
					t.Logf("%s %s: no location (a global's storage is Load's business)", k.Function, k.Name)
				case locs == 0:
					t.Errorf("%s %s: no location", k.Function, k.Name)
				}
			}
		})
	}
}

// keyVars finds a manifest key variable: a global by its name (C++ ones
// are qualified, "ns::name"), a local by the linkage name of its function,
// which is the function's Name or the name of its symbol.
func keyVars(s *model.Schema, fn, name string) []model.VarID {
	var out []model.VarID
	for i, v := range s.Vars {
		if v.Name != name && !strings.HasSuffix(v.Name, "::"+name) {
			continue
		}
		if fn == model.GlobalFunc {
			if v.Func == model.NoFunc {
				out = append(out, model.VarID(i))
			}
			continue
		}
		if v.Func != model.NoFunc && funcIs(s, &s.Funcs[v.Func], fn) {
			out = append(out, model.VarID(i))
		}
	}
	return out
}

func funcIs(s *model.Schema, f *model.Func, name string) bool {
	if f.Name == name {
		return true
	}
	for _, sym := range s.Symbols {
		if sym.Name != name && !strings.HasPrefix(sym.Name, name+".") {
			continue
		}
		for _, r := range f.Ranges {
			if sym.Value >= r.Lo && sym.Value < r.Hi {
				return true
			}
		}
	}
	return false
}
