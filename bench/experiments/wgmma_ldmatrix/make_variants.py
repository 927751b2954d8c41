# Writes v*.cu: kernel.cu's kernel k0_S in variants, each followed by driver.inc (run.sh).
import re
src = open('kernel.cu').read()
if '/* PyTorch check' in src:
    src = src[:src.index('/* PyTorch check')]
body_start = src.index('extern "C" __global__ void k0_S')
body_end = src.index('cudaError_t cusched_launch')
head, body, tail = src[:body_start], src[body_start:body_end], src[body_end:]
drv = open('driver.inc').read()
def w(name, h, b):
    open(name + '.cu', 'w').write(h + b + tail + drv)
w('v0', head, body)
old = '''asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(shared_address(smem_row)));'''
assert old in head, 'clobber site'
w('v1_memory_clobber', head.replace(old, old[:-2] + ' : "memory");'), body)
w('v2_wait0', head, body.replace('wgmma_wait<1>()', 'wgmma_wait<0>()'))
w('v3_proxy_fence', head, body.replace('    __syncthreads();', '    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");\n    __syncthreads();'))
fence_acc = '\n'.join('        asm volatile("" : "+f"(S_acc[%d]) :: "memory");' % r for r in range(128))
w('v4_acc_fence', head, body.replace('        cusched::wgmma_wait<1>();', '        cusched::wgmma_wait<1>();\n' + fence_acc).replace('        cusched::wgmma_fence();', fence_acc + '\n        cusched::wgmma_fence();'))
w('v6_no_hold', head, re.sub(r'\n\s*cusched::hold_register\(S_fa\[\d+\]\);', '', body))
# scalar A fragments (the emission before ldmatrix): word r of k-chunk q holds (m, k), (m, k + 1)
def scalar(stage_expr, q, base):
    out = []
    for r in range(4):
        m = '(S_lane / 32 * 16 + S_mw * 64 + S_lane %% 32 / 4 + %d)' % (8 * (r % 2))
        k = '(%d + S_lane %% 4 * 2 + %d)' % (16 * q, 8 * (r // 2))
        addr = '%s * 8192 + %s * 128 + %s' % (stage_expr, k, m)
        out.append('        S_fa[%d] = (unsigned)__bfloat16_as_ushort(B_shared[%s]) | ((unsigned)__bfloat16_as_ushort(B_shared[%s + 128]) << 16);' % (base + 4 * q + r, addr, addr))
    return '\n'.join(out)
b = body
lines = b.split('\n')
out = []
for ln in lines:
    mm = re.match(r'\s*cusched::ldmatrix_x4_trans_words\(S_fa\[(\d+)\]', ln)
    if mm:
        first = int(mm.group(1)); base = first - first % 16; q = (first % 16) // 4
        stage = '(S_ko_pair * 2 % 4)' if base == 0 else '((S_ko_pair * 2 + 1) % 4)'
        out.append(scalar(stage, q, base)); continue
    out.append(ln)
w('v10_scalar', head, '\n'.join(out))
parts = body.split('cusched::wgmma_wait<1>();')
assert len(parts) == 3
w('v9_wait1_then_0', head, parts[0] + 'cusched::wgmma_wait<1>();' + parts[1] + 'cusched::wgmma_wait<0>();' + parts[2])
