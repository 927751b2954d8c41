# LayerNorm variants: the normalise pass with more rows unrolled and the partial moments with 128 or 512 threads.
import json, os
base = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'layernorm', 'bloop_3kernels.json')))
def moments_rf(parts=None, rht=4, rhu=8, threads_w=64):
    s = []
    if parts:
        s += [{"op":"split","stage":"Moments","loop":"rh","parts":parts,"outer":"rhp","inner":"rhr"},
              {"op":"fuse","stage":"Moments","outer":"rc","inner":"rhp","fused":"rcp"},
              {"op":"rfactor","stage":"Moments","loop":"rcp","name":"Moments_rf"},
              {"op":"fuse","stage":"Moments_rf","outer":"rcp","inner":"b","fused":"rcb"}]
    else:
        s += [{"op":"rfactor","stage":"Moments","loop":"rc","name":"Moments_rf"},
              {"op":"fuse","stage":"Moments_rf","outer":"rc","inner":"b","fused":"rcb"}]
    rh = "rhr" if parts else "rh"
    s += [{"op":"bind","stage":"Moments_rf","loop":"rcb","axis":"blockIdx.x"},
          {"op":"split","stage":"Moments_rf","loop":"rw","factor":4,"outer":"rwo","inner":"rwv"},
          {"op":"split","stage":"Moments_rf","loop":rh,"factor":rht,"outer":"rho","inner":"rht"},
          {"op":"split","stage":"Moments_rf","loop":"rho","factor":rhu,"outer":"rhoo","inner":"rhu"},
          {"op":"reorder","stage":"Moments_rf","loops":["rhoo","rhu","rht","rwo","m","rwv"]},
          {"op":"fuse","stage":"Moments_rf","outer":"rht","inner":"rwo","fused":"rt"},
          {"op":"cross_thread_reduce","stage":"Moments_rf","loop":"rt","kind":"block"},
          {"op":"unroll","stage":"Moments_rf","loop":"rhu"},
          {"op":"unroll","stage":"Moments_rf","loop":"m"},
          {"op":"vectorize","stage":"Moments_rf","loop":"rwv"}]
    red = "rcp" if parts else "rc"
    threads = 64 * (parts or 1)
    s += [{"op":"reorder","stage":"Moments","loops":[red,"m"]},
          {"op":"bind","stage":"Moments","loop":"b","axis":"blockIdx.x"},
          {"op":"unroll","stage":"Moments","loop":"m"},
          {"op":"cross_thread_reduce","stage":"Moments","loop":red,"kind":"block"}]
    return s
def y(bu=4, hi=4):
    return [{"op":"split","stage":"Y","loop":"w","factor":4,"outer":"wo","inner":"wv"},
      {"op":"split","stage":"Y","loop":"h","factor":hi,"outer":"ho","inner":"hi"},
      {"op":"split","stage":"Y","loop":"b","factor":bu,"outer":"bo","inner":"bu"},
      {"op":"reorder","stage":"Y","loops":["c","ho","hi","wo","bo","bu","wv"]},
      {"op":"bind","stage":"Y","loop":"ho","axis":"blockIdx.x"},
      {"op":"bind","stage":"Y","loop":"c","axis":"blockIdx.y"},
      {"op":"fuse","stage":"Y","outer":"hi","inner":"wo","fused":"t"},
      {"op":"bind","stage":"Y","loop":"t","axis":"threadIdx.x"},
      {"op":"unroll","stage":"Y","loop":"bu"},
      {"op":"vectorize","stage":"Y","loop":"wv"}]
assert moments_rf()+y() == base, "control differs"
V = {
 "ln_ctl": moments_rf()+y(),
 "ln_y_bu8": moments_rf()+y(bu=8),
 "ln_y_bu16": moments_rf()+y(bu=16),
 "ln_y_hi2": moments_rf()+y(hi=2),
 "ln_m_t128": moments_rf(rht=2)+y(),
 "ln_m_t512": moments_rf(rht=8, rhu=4)+y(),
}
for k,v in V.items(): json.dump(v, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), k + '.json'), 'w'), indent=1)
