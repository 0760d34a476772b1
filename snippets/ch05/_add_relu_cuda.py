"""The chapter's CUDA C++ source, shared by its examples: the kernels, then the launchers.

KERNELS is plain CUDA C++ (no PyTorch), so that nvcc can compile it on its own for sm_90
(cuda_sm90.py); LAUNCHERS are the host functions PyTorch calls, compiled with the kernels by
torch.utils.cpp_extension.load_inline on a machine with a GPU (add_relu_cuda.py, cuda_bandwidth.py).
"""

KERNELS = r"""
#include <cstdint>

// One thread per element: thread i of the whole grid computes c[i].
extern "C" __global__ void add_relu_kernel(const float* a, const float* b, float* c, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;  // this thread's element
    if (i < n) {                                                  // the bounds check
        c[i] = fmaxf(a[i] + b[i], 0.0f);
    }
}

// One thread per four elements, moved as one float4 (16 bytes): a, b and c must start on a
// 16-byte boundary. The last n % 4 elements (the tail) go to the first threads, one each.
extern "C" __global__ void add_relu_vec4_kernel(const float* a, const float* b, float* c, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t n4 = n / 4;
    if (i < n4) {
        float4 x = reinterpret_cast<const float4*>(a)[i];
        float4 y = reinterpret_cast<const float4*>(b)[i];
        float4 z;
        z.x = fmaxf(x.x + y.x, 0.0f);
        z.y = fmaxf(x.y + y.y, 0.0f);
        z.z = fmaxf(x.z + y.z, 0.0f);
        z.w = fmaxf(x.w + y.w, 0.0f);
        reinterpret_cast<float4*>(c)[i] = z;
    }
    if (i < n % 4) {
        int64_t t = n4 * 4 + i;
        c[t] = fmaxf(a[t] + b[t], 0.0f);
    }
}

// A grid-stride loop: a grid of any size walks the whole array, each thread taking every
// (gridDim.x * blockDim.x)-th element.
extern "C" __global__ void add_relu_grid_stride_kernel(const float* a, const float* b, float* c, int64_t n) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        c[i] = fmaxf(a[i] + b[i], 0.0f);
    }
}
"""

LAUNCHERS = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

constexpr int THREADS = 256;  // threads per block: 8 warps

static void check(const torch::Tensor& a, const torch::Tensor& b) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "add_relu: a and b must be CUDA tensors");
    TORCH_CHECK(a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32, "add_relu: float32 only");
    TORCH_CHECK(a.sizes() == b.sizes() && a.is_contiguous() && b.is_contiguous(),
                "add_relu: a and b must be contiguous and of the same shape");
}

torch::Tensor add_relu(torch::Tensor a, torch::Tensor b) {
    check(a, b);
    auto c = torch::empty_like(a);
    int64_t n = a.numel();
    if (n == 0) return c;
    int64_t blocks = (n + THREADS - 1) / THREADS;  // enough blocks to cover every element
    add_relu_kernel<<<blocks, THREADS, 0, c10::cuda::getCurrentCUDAStream()>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return c;
}

torch::Tensor add_relu_vec4(torch::Tensor a, torch::Tensor b) {
    check(a, b);
    auto c = torch::empty_like(a);
    int64_t n = a.numel();
    if (n == 0) return c;
    // float4 needs 16-byte alignment: a view that starts mid-tensor may not have it
    auto misaligned = [](const torch::Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 != 0; };
    if (misaligned(a) || misaligned(b) || misaligned(c)) return add_relu(a, b);
    int64_t work = std::max<int64_t>(n / 4, n % 4);  // threads needed: a float4 each, or a tail element each
    int64_t blocks = (work + THREADS - 1) / THREADS;
    add_relu_vec4_kernel<<<blocks, THREADS, 0, c10::cuda::getCurrentCUDAStream()>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return c;
}

torch::Tensor add_relu_grid_stride(torch::Tensor a, torch::Tensor b) {
    check(a, b);
    auto c = torch::empty_like(a);
    int64_t n = a.numel();
    if (n == 0) return c;
    // One full wave: as many blocks as the GPU holds at once (2,048 threads per SM on sm_90)
    int sms = 0;
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c10::cuda::current_device()));
    int64_t blocks = std::min<int64_t>((n + THREADS - 1) / THREADS, (int64_t)sms * (2048 / THREADS));
    add_relu_grid_stride_kernel<<<blocks, THREADS, 0, c10::cuda::getCurrentCUDAStream()>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return c;
}
"""

DECLARATIONS = """
torch::Tensor add_relu(torch::Tensor a, torch::Tensor b);
torch::Tensor add_relu_vec4(torch::Tensor a, torch::Tensor b);
torch::Tensor add_relu_grid_stride(torch::Tensor a, torch::Tensor b);
"""

FUNCTIONS = ["add_relu", "add_relu_vec4", "add_relu_grid_stride"]


def build():
    """Compile the kernels and launchers into a Python module (nvcc and a C++ compiler, a GPU).

    load_inline caches the build by its source, so a second example reuses the first one's.
    """
    from torch.utils.cpp_extension import load_inline

    return load_inline(name="kernelbook_ch05_add_relu", cpp_sources=DECLARATIONS,
                       cuda_sources=KERNELS + LAUNCHERS, functions=FUNCTIONS,
                       extra_cuda_cflags=["-O3"], verbose=False)


def why_not_built(torch):
    """Why this machine cannot build and run the kernels, in one line, or None when it can."""
    if not torch.cuda.is_available():
        return "no CUDA GPU here: the CUDA C++ kernels are not built or run (on a GPU this builds them with load_inline)"
    if torch.version.cuda is None:
        return "this torch was built without CUDA: install a CUDA build of torch to build the kernels"
    return None
