/* pto_isa_stub.hpp - declarations of the part of the Ascend pto-isa C++ API that
   `ptoc emit --target isa` writes against, with the names and template shapes of the
   real headers (docs/isa-target.md lists them and where they come from). Nothing here
   runs: tests/isa_test.sh compiles emitted kernels with g++ -fsyntax-only against it.
   It is deliberately strict: each instruction checks, at compile time, the tile types
   (TileType) and operand order the real API requires, so an emitter slip such as
   swapping TMATMUL's operands or passing a Vec tile to the cube fails to compile.
   docs/isa-target.md, "Checked against pto-isa's headers", compares each declaration here
   with the real one; where pto-isa decides by valid regions at run time (row reductions,
   broadcasts, TMOV), the stub holds constant regions to what the device needs. */
#ifndef PTO_ISA_STUB_HPP
#define PTO_ISA_STUB_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>

#define __global__
#define AICORE
#define __gm__

/* CCE intrinsics: pipes, event ids, flags, barriers, block queries */
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
void set_flag(pipe_t src, pipe_t dst, event_t id);
void wait_flag(pipe_t src, pipe_t dst, event_t id);
void pipe_barrier(pipe_t pipe);
int64_t get_block_idx();
int64_t get_block_num();
int64_t get_subblockid();

struct half { uint16_t bits; half() = default; half(float); half(double); operator float() const; };
struct bfloat16_t { uint16_t bits; bfloat16_t() = default; bfloat16_t(float); bfloat16_t(double); operator float() const; };

namespace pto {

constexpr int DYNAMIC = -1;

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling };
enum class BLayout { RowMajor, ColMajor };
enum class SLayout { NoneBox, RowMajor, ColMajor };
enum class Layout { ND, DN, NZ };
enum class PadValue { Null, Zero, Max, Min };
enum class RoundMode { CAST_NONE, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD };

template <int64_t... N>
constexpr int pto_stub_ndyn() { return ((N == DYNAMIC ? 1 : 0) + ... + 0); }

/* Shape / Stride: five dims; the constructor takes exactly the dynamic ones */
template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Shape {
    static constexpr int ndyn = pto_stub_ndyn<N1, N2, N3, N4, N5>();
    Shape() {}
    template <typename... A, typename = std::enable_if_t<(sizeof...(A) > 0) && sizeof...(A) == ndyn>>
    Shape(A... dims) { static_assert((std::is_integral<A>::value && ...), "Shape: integer extents"); (void)sizeof...(dims); }
};

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Stride {
    static constexpr int ndyn = pto_stub_ndyn<N1, N2, N3, N4, N5>();
    static constexpr int64_t staticStride[5] = {N1, N2, N3, N4, N5};
    Stride() {}
    template <typename... A, typename = std::enable_if_t<(sizeof...(A) > 0) && sizeof...(A) == ndyn>>
    Stride(A... s) { static_assert((std::is_integral<A>::value && ...), "Stride: integer strides"); (void)sizeof...(s); }
};

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
struct GlobalTensor {
    using DType = Element_;
    static constexpr int64_t staticStride[5] = {Stride_::staticStride[0], Stride_::staticStride[1],
                                                Stride_::staticStride[2], Stride_::staticStride[3],
                                                Stride_::staticStride[4]};
    GlobalTensor(__gm__ Element_ *data, const Shape_ &shape = Shape_(), const Stride_ &stride = Stride_())
    { (void)data; (void)shape; (void)stride; }
};

template <TileType Loc_, typename Element_, int Rows_, int Cols_, BLayout BFractal_ = BLayout::RowMajor,
          int RowValid_ = Rows_, int ColValid_ = Cols_, SLayout SFractal_ = SLayout::NoneBox,
          int SFractalSize_ = 512, PadValue PadVal_ = PadValue::Null>
struct Tile {
    using DType = Element_;
    static constexpr TileType Loc = Loc_;
    static constexpr int Rows = Rows_, Cols = Cols_, ValidRow = RowValid_, ValidCol = ColValid_;
    static constexpr BLayout BFractal = BFractal_;
    static constexpr SLayout SFractal = SFractal_;
    static constexpr PadValue PadVal = PadVal_;
    static constexpr bool boxed = SFractal_ != SLayout::NoneBox;
    static constexpr int InnerRows = SFractalSize_ == 1024 ? 16 : !boxed ? 1
                                   : SFractal_ == SLayout::RowMajor ? 16 : int(32 / sizeof(Element_));
    static constexpr int InnerCols = SFractalSize_ == 1024 ? 16 : !boxed ? 1
                                   : SFractal_ == SLayout::RowMajor ? int(32 / sizeof(Element_)) : 16;
    static_assert(Rows > 0 && Cols > 0, "Tile: positive shape");
    static_assert((RowValid_ == DYNAMIC || (RowValid_ > 0 && RowValid_ <= Rows)) &&
                  (ColValid_ == DYNAMIC || (ColValid_ > 0 && ColValid_ <= Cols)), "Tile: valid region inside the tile");
    static_assert(SFractalSize_ == 512 || SFractalSize_ == 1024, "Tile: fractal size 512 or 1024");
    static_assert(boxed || (BFractal_ == BLayout::RowMajor ? Cols * sizeof(Element_) % 32 == 0
                                                           : Rows * sizeof(Element_) % 32 == 0),
                  "Tile: an unboxed tile's rows (row major) or columns (column major) are 32-byte aligned");
    static_assert(!boxed || (Rows % InnerRows == 0 && Cols % InnerCols == 0), "Tile: whole fractals");
    static_assert(Loc_ != TileType::Vec || !boxed, "Tile: vec tiles are not boxed");
    static_assert(Loc_ == TileType::Vec || boxed, "Tile: cube tiles are boxed (fractal layouts)");

    unsigned GetValidRow() const;
    unsigned GetValidCol() const;
    template <int R = RowValid_, int C = ColValid_, std::enable_if_t<(R > 0) && (C > 0), int> = 0>
    Tile() {}
    template <int R = RowValid_, int C = ColValid_, std::enable_if_t<R == DYNAMIC && C == DYNAMIC, int> = 0>
    Tile(unsigned vr, unsigned vc) { (void)vr; (void)vc; }
    template <int R = RowValid_, int C = ColValid_, std::enable_if_t<R == DYNAMIC && (C > 0), int> = 0>
    explicit Tile(unsigned vr) { (void)vr; }
    template <int R = RowValid_, int C = ColValid_, std::enable_if_t<(R > 0) && C == DYNAMIC, int> = 0, int = 0>
    explicit Tile(unsigned vc) { (void)vc; }
};

/* the cube operand aliases (a2a3 layouts) */
template <typename Element_, int Rows_, int Cols_, int RowValid_ = Rows_, int ColValid_ = Cols_>
using TileLeft = Tile<TileType::Left, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_,
                      SLayout::RowMajor, 512>;
template <typename Element_, int Rows_, int Cols_, int RowValid_ = Rows_, int ColValid_ = Cols_>
using TileRight = Tile<TileType::Right, Element_, Rows_, Cols_, BLayout::RowMajor, RowValid_, ColValid_,
                       SLayout::ColMajor, 512>;
template <typename Element_, int Rows_, int Cols_, int RowValid_ = Rows_, int ColValid_ = Cols_>
using TileAcc = Tile<TileType::Acc, Element_, Rows_, Cols_, BLayout::ColMajor, RowValid_, ColValid_,
                     SLayout::RowMajor, 1024>;

template <typename T> struct is_tile : std::false_type {};
template <TileType L, typename E, int R, int C, BLayout B, int VR, int VC, SLayout S, int F, PadValue P>
struct is_tile<Tile<L, E, R, C, B, VR, VC, S, F, P>> : std::true_type {};
template <typename T> struct is_global : std::false_type {};
template <typename E, typename Sh, typename St, Layout L>
struct is_global<GlobalTensor<E, Sh, St, L>> : std::true_type {};

template <typename T, TileType L> constexpr bool pto_stub_at() { return is_tile<T>::value && T::Loc == L; }
template <typename D, typename... S> constexpr bool pto_stub_vec()
{ return pto_stub_at<D, TileType::Vec>() && (pto_stub_at<S, TileType::Vec>() && ...); }
template <typename D, typename... S> constexpr bool pto_stub_same()
{ return (std::is_same<typename D::DType, typename S::DType>::value && ...); }

template <typename T, typename AddrType>
void TASSIGN(T &obj, AddrType addr)
{
    static_assert(is_tile<T>::value, "TASSIGN: a tile");
    static_assert(std::is_integral<AddrType>::value, "TASSIGN: a tile takes an integral address");
    (void)obj; (void)addr;
}

/* A column [R, 1] vec tile is DN: a2a3 TLOAD / TSTORE (TLoadGm2ubDn2dn, TStoreUb2gmDn2dn) move
   it as one contiguous run of its valid rows, never reading the GM row stride, so the window's
   rows must be 1 element apart (a tensor of one column) */
template <typename TileData, typename GlobalData> constexpr bool pto_stub_dn_window()
{
    return TileData::Loc != TileType::Vec || TileData::BFractal != BLayout::ColMajor || TileData::boxed ||
           GlobalData::staticStride[3] == 1;
}

template <typename TileData, typename GlobalData>
void TLOAD(TileData &dst, GlobalData &src)
{
    static_assert(pto_stub_dn_window<TileData, GlobalData>(), "TLOAD: a column tile from a contiguous column");
    static_assert(is_tile<TileData>::value && is_global<GlobalData>::value, "TLOAD(tile, global)");
    static_assert(TileData::Loc == TileType::Vec || TileData::Loc == TileType::Mat, "TLOAD: into vec or mat");
    static_assert(pto_stub_same<TileData, GlobalData>(), "TLOAD: same element type");
    (void)dst; (void)src;
}

/* TSTORE from an Acc tile without quant parameters (a2a3 CheckAcc2gm and
   GetCastPreQuantMode): a float acc is cast on the way out by the fixpipe
   (F322F16 / F322BF16) or copied; an int32_t acc is copied. pto-isa's
   static check would also take float -> int32_t and int32_t -> half with no
   cast; we never emit those. */
template <typename A, typename G> constexpr bool pto_stub_acc_out()
{
    return (std::is_same<A, float>::value &&
            (std::is_same<G, float>::value || std::is_same<G, half>::value || std::is_same<G, bfloat16_t>::value)) ||
           (std::is_same<A, int32_t>::value && std::is_same<G, int32_t>::value);
}

template <typename GlobalData, typename TileData>
void TSTORE(GlobalData &dst, TileData &src)
{
    static_assert(is_global<GlobalData>::value && is_tile<TileData>::value, "TSTORE(global, tile)");
    static_assert(pto_stub_dn_window<TileData, GlobalData>(), "TSTORE: a column tile to a contiguous column");
    static_assert(TileData::Loc == TileType::Vec || TileData::Loc == TileType::Acc, "TSTORE: from vec or acc");
    static_assert(TileData::Loc == TileType::Acc || pto_stub_same<TileData, GlobalData>(), "TSTORE: same element type");
    static_assert(TileData::Loc != TileType::Acc || pto_stub_acc_out<typename TileData::DType, typename GlobalData::DType>(),
                  "TSTORE: an acc tile stores float to float / half / bfloat16_t, int32_t to int32_t");
    (void)dst; (void)src;
}

#define PTO_STUB_BIN(NAME) \
    template <typename D, typename A, typename B> void NAME(D &dst, A &src0, B &src1) \
    { static_assert(pto_stub_vec<D, A, B>() && pto_stub_same<D, A, B>(), #NAME ": vec tiles of one type"); \
      (void)dst; (void)src0; (void)src1; }
PTO_STUB_BIN(TADD) PTO_STUB_BIN(TSUB) PTO_STUB_BIN(TMUL) PTO_STUB_BIN(TDIV) PTO_STUB_BIN(TMAX) PTO_STUB_BIN(TMIN)

#define PTO_STUB_BINS(NAME) \
    template <typename D, typename A> void NAME(D &dst, A &src, typename A::DType scalar) \
    { static_assert(pto_stub_vec<D, A>() && pto_stub_same<D, A>(), #NAME ": vec tiles of one type"); \
      (void)dst; (void)src; (void)scalar; }
PTO_STUB_BINS(TADDS) PTO_STUB_BINS(TSUBS) PTO_STUB_BINS(TMULS) PTO_STUB_BINS(TDIVS) PTO_STUB_BINS(TMAXS)
PTO_STUB_BINS(TMINS)

#define PTO_STUB_UN(NAME) \
    template <typename D, typename A> void NAME(D &dst, A &src) \
    { static_assert(pto_stub_vec<D, A>() && pto_stub_same<D, A>(), #NAME ": vec tiles of one type"); \
      (void)dst; (void)src; }
PTO_STUB_UN(TEXP) PTO_STUB_UN(TLOG) PTO_STUB_UN(TSQRT) PTO_STUB_UN(TRSQRT) PTO_STUB_UN(TRECIP) PTO_STUB_UN(TABS)
PTO_STUB_UN(TNEG) PTO_STUB_UN(TRELU)

template <typename D>
void TEXPANDS(D &dst, typename D::DType scalar)
{ static_assert(pto_stub_vec<D>(), "TEXPANDS: a vec tile"); (void)dst; (void)scalar; }

/* The padding fills (include/pto/npu/a2a3/TFillPad.hpp). A vec tile:
   TFILLPAD_INPLACE(dst, src) over the same bytes, src the loaded tile with its
   valid region, dst the whole tile (its valid region full, or the rows past
   src's are not padded) with a pad value other than Null and other than src's
   (or the rest of a row's last 32-byte block is not padded); both row major
   (the pad runs along rows) and of one element size. A mat tile: TFILLPAD(t,
   t), NZ, pad value Zero or Null. */
template <typename D, typename S>
void TFILLPAD_INPLACE(D &dst, S &src)
{
    static_assert(pto_stub_vec<D, S>() && sizeof(typename D::DType) == sizeof(typename S::DType),
                  "TFILLPAD_INPLACE: vec tiles of one element size");
    static_assert(D::Rows == S::Rows && D::Cols == S::Cols, "TFILLPAD_INPLACE: one shape");
    static_assert(D::BFractal == BLayout::RowMajor && S::BFractal == BLayout::RowMajor, "TFILLPAD_INPLACE: row major");
    static_assert(D::ValidRow == D::Rows && D::ValidCol == D::Cols, "TFILLPAD_INPLACE: dst is the whole tile");
    static_assert(D::PadVal != PadValue::Null && D::PadVal != S::PadVal,
                  "TFILLPAD_INPLACE: dst has a pad value, unlike src");
    (void)dst; (void)src;
}
template <typename T>
void TFILLPAD(T &dst, T &src)
{
    static_assert(pto_stub_at<T, TileType::Mat>(), "TFILLPAD(t, t): the mat form (a vec tile: TFILLPAD_INPLACE)");
    static_assert(T::BFractal == BLayout::ColMajor && T::SFractal == SLayout::RowMajor, "TFILLPAD: an NZ mat tile");
    static_assert(T::PadVal == PadValue::Null || T::PadVal == PadValue::Zero, "TFILLPAD: mat pad value Zero or Null");
    (void)dst; (void)src;
}

/* row reductions (a2a3 TRowSum.hpp / TRowReduceOps.hpp, cpu/TRowSum.hpp): src row major and
   unboxed, dst a column of src's rows (Rows equal: the CPU backend's static_assert); the rows
   reduced are SRC's valid rows, which must equal dst's (TRowReduceCheck): the stub holds the
   types to it as far as they tell (both the same constant, or both DYNAMIC) */
#define PTO_STUB_ROWRED(NAME) \
    template <typename D, typename S, typename T> void NAME(D &dst, S &src, T &tmp) \
    { static_assert(pto_stub_vec<D, S, T>() && pto_stub_same<D, S, T>(), #NAME ": vec tiles of one type"); \
      static_assert(D::Cols == 1 && D::Rows == S::Rows, #NAME ": the result is a column of src's rows"); \
      static_assert(S::BFractal == BLayout::RowMajor && !S::boxed, #NAME ": an ND (row-major) source"); \
      static_assert(D::ValidRow == S::ValidRow, #NAME ": src's valid rows (the rows reduced) are dst's"); \
      (void)dst; (void)src; (void)tmp; }
PTO_STUB_ROWRED(TROWSUM) PTO_STUB_ROWRED(TROWMAX) PTO_STUB_ROWRED(TROWMIN)

/* row broadcasts (a2a3 TRowExpandAdd.hpp ..): over dst's valid region; the operand whose valid
   region is dst's is taken as the tile, the other as the column (a run-time test), so src0's
   valid region must be dst's: the stub holds the types to it as far as they tell */
#define PTO_STUB_ROWEXP(NAME) \
    template <typename D, typename A, typename V> void NAME(D &dst, A &src0, V &src1) \
    { static_assert(pto_stub_vec<D, A, V>() && pto_stub_same<D, A, V>(), #NAME ": vec tiles of one type"); \
      static_assert(V::Cols == 1, #NAME ": src1 is a column"); \
      static_assert(D::BFractal == BLayout::RowMajor, #NAME ": dst row major"); \
      static_assert(D::ValidRow == A::ValidRow && D::ValidCol == A::ValidCol, \
                    #NAME ": src0 has dst's valid region (else it is taken for the column)"); \
      (void)dst; (void)src0; (void)src1; }
PTO_STUB_ROWEXP(TROWEXPANDADD) PTO_STUB_ROWEXP(TROWEXPANDSUB) PTO_STUB_ROWEXP(TROWEXPANDMUL)
PTO_STUB_ROWEXP(TROWEXPANDDIV)

/* column reductions (pto-isa docs/isa/TCOLSUM.md, a2a3 TColSum.hpp / TColReduceOps.hpp): ND
   (row-major) vec tiles, dst a row [1, C] of src's columns; a2a3 takes half, float, int16_t,
   int32_t; TCOLSUM takes a tmp tile and isBinary (false: the sequential sum) */
template <typename D, typename S> constexpr bool pto_stub_colred()
{
    return pto_stub_vec<D, S>() && pto_stub_same<D, S>() && D::Rows == 1 && D::Cols == S::Cols &&
           D::BFractal == BLayout::RowMajor && S::BFractal == BLayout::RowMajor &&
           (std::is_same<typename S::DType, half>::value || std::is_same<typename S::DType, float>::value ||
            std::is_same<typename S::DType, int16_t>::value || std::is_same<typename S::DType, int32_t>::value);
}
template <typename D, typename S, typename T>
void TCOLSUM(D &dst, S &src, T &tmp, bool isBinary)
{
    static_assert(pto_stub_colred<D, S>(), "TCOLSUM: a row-major vec [1, C] result of src's columns, half/float/int16/int32");
    static_assert(pto_stub_vec<T>() && pto_stub_same<T, S>() && T::BFractal == BLayout::RowMajor,
                  "TCOLSUM: tmp is a row-major vec tile of src's type");
    (void)dst; (void)src; (void)tmp; (void)isBinary;
}
#define PTO_STUB_COLRED(NAME) \
    template <typename D, typename S> void NAME(D &dst, S &src) \
    { static_assert(pto_stub_colred<D, S>(), #NAME ": a row-major vec [1, C] result of src's columns, half/float/int16/int32"); \
      (void)dst; (void)src; }
PTO_STUB_COLRED(TCOLMAX) PTO_STUB_COLRED(TCOLMIN)

/* transpose (pto-isa docs/isa/TTRANS.md, a2a3 TTrans.hpp): TTRANS(dst, src, tmp); element
   sizes of src and dst equal (1, 2 or 4 bytes), src and dst row major; src's valid region is
   transposed (dst's is not read: the stub holds dst's to src's transposed as far as the types
   tell); tmp holds the transposed valid region with rows rounded up to 16 elements (32 for
   1-byte types) and the cols to whole 32-byte blocks: a vec tile at least that big */
template <typename D, typename S, typename T>
void TTRANS(D &dst, S &src, T &tmp)
{
    static_assert(pto_stub_vec<D, S, T>(), "TTRANS: vec tiles");
    static_assert(sizeof(typename D::DType) == sizeof(typename S::DType) &&
                  (sizeof(typename S::DType) == 1 || sizeof(typename S::DType) == 2 || sizeof(typename S::DType) == 4),
                  "TTRANS: src and dst elements of one size, 1, 2 or 4 bytes");
    static_assert(D::BFractal == BLayout::RowMajor && S::BFractal == BLayout::RowMajor, "TTRANS: row-major src and dst");
    static_assert(D::Rows == S::Cols && D::Cols == S::Rows, "TTRANS: dst is src's shape transposed");
    static_assert(D::ValidRow == S::ValidCol && D::ValidCol == S::ValidRow, "TTRANS: dst's valid region is src's transposed");
    static_assert(sizeof(typename T::DType) * T::Rows * T::Cols >=
                      sizeof(typename S::DType) * ((S::Cols * sizeof(typename S::DType) + 31) / 32 * 32 / sizeof(typename S::DType)) *
                          ((S::Rows + (sizeof(typename S::DType) == 1 ? 31 : 15)) / (sizeof(typename S::DType) == 1 ? 32 : 16) *
                           (sizeof(typename S::DType) == 1 ? 32 : 16)),
                  "TTRANS: tmp holds src's transpose rounded up to 16 / 32 rows and 32-byte columns");
    (void)dst; (void)src; (void)tmp;
}

/* column broadcasts (a2a3 TColExpandBinOp.hpp): dst[i, j] = src0[i, j] op src1[0, j]; row-major,
   half or float; like the row broadcasts, the operand with dst's valid region is the tile (a
   run-time test in TCOLEXPANDOP_IMPL) */
#define PTO_STUB_COLEXP(NAME) \
    template <typename D, typename A, typename V> void NAME(D &dst, A &src0, V &src1) \
    { static_assert(pto_stub_vec<D, A, V>() && pto_stub_same<D, A, V>(), #NAME ": vec tiles of one type"); \
      static_assert(D::BFractal == BLayout::RowMajor && V::Rows == 1 && V::Cols == D::Cols, \
                    #NAME ": src1 is a row of dst's columns, dst row major"); \
      static_assert(std::is_same<typename D::DType, half>::value || std::is_same<typename D::DType, float>::value, \
                    #NAME ": half or float"); \
      static_assert(D::ValidRow == A::ValidRow && D::ValidCol == A::ValidCol, \
                    #NAME ": src0 has dst's valid region (else it is taken for the row)"); \
      (void)dst; (void)src0; (void)src1; }
PTO_STUB_COLEXP(TCOLEXPANDADD) PTO_STUB_COLEXP(TCOLEXPANDSUB) PTO_STUB_COLEXP(TCOLEXPANDMUL)
PTO_STUB_COLEXP(TCOLEXPANDDIV)

template <typename D, typename S>
void TCVT(D &dst, S &src, RoundMode mode)
{ static_assert(pto_stub_vec<D, S>(), "TCVT: vec tiles"); (void)dst; (void)src; (void)mode; }

/* TMOV (a2a3 TMov.hpp, TMOV_TILE_IMPL): mat -> left / right, vec -> vec, acc -> mat (a5 also
   acc -> vec); src and dst of one shape. vec -> vec copies the smaller of the two valid regions
   (TMovToVec), so src's must cover dst's: the stub holds constant regions to it; its elements are
   of one size (TCopy). acc -> mat (the plain form, no quantisation scale) converts only
   float -> half / bfloat16_t on a2a3 (CheckTMovAccToMat with isCastQuant); a5's plain form also
   keeps float and int32_t. mat -> left / right moves by element size, with no dtype check. */
template <typename D, typename S> constexpr bool pto_stub_acc_to_mat()
{
    using DT = typename D::DType;
    using ST = typename S::DType;
    return (std::is_same<ST, float>::value && (std::is_same<DT, half>::value || std::is_same<DT, bfloat16_t>::value))
#if defined(PTO_NPU_ARCH_A5)
           || (std::is_same<ST, float>::value && std::is_same<DT, float>::value) ||
           (std::is_same<ST, int32_t>::value && std::is_same<DT, int32_t>::value)
#endif
        ;
}
template <typename D, typename S> constexpr bool pto_stub_covers()
{
    return (S::ValidRow == S::Rows || (D::ValidRow != DYNAMIC && S::ValidRow != DYNAMIC && S::ValidRow >= D::ValidRow) ||
            (D::ValidRow == DYNAMIC && S::ValidRow == DYNAMIC)) &&
           (S::ValidCol == S::Cols || (D::ValidCol != DYNAMIC && S::ValidCol != DYNAMIC && S::ValidCol >= D::ValidCol) ||
            (D::ValidCol == DYNAMIC && S::ValidCol == DYNAMIC));
}
template <typename D, typename S>
void TMOV(D &dst, S &src)
{
    constexpr TileType d = D::Loc, s = S::Loc;
    static_assert(is_tile<D>::value && is_tile<S>::value, "TMOV(tile, tile)");
    static_assert(((d == TileType::Left || d == TileType::Right) && s == TileType::Mat) ||
                  (d == TileType::Vec && s == TileType::Vec) || (d == TileType::Mat && s == TileType::Acc)
#if defined(PTO_NPU_ARCH_A5)
                  || (d == TileType::Vec && s == TileType::Acc)
#endif
                  , "TMOV: a supported pair of tile types");
    static_assert(D::Rows == S::Rows && D::Cols == S::Cols, "TMOV: src and dst of one shape");
    static_assert(d != TileType::Vec || s != TileType::Vec || pto_stub_covers<D, S>(),
                  "TMOV: vec -> vec copies the smaller valid region: src's must cover dst's");
    static_assert(d != TileType::Vec || s != TileType::Vec || sizeof(typename D::DType) == sizeof(typename S::DType),
                  "TMOV: vec -> vec elements of one size");
    static_assert(d != TileType::Mat || s != TileType::Acc || pto_stub_acc_to_mat<D, S>(),
                  "TMOV: acc -> mat converts float to half / bfloat16_t only (a2a3 CheckTMovAccToMat)");
    (void)dst; (void)src;
}

template <typename D, typename S>
void TEXTRACT(D &dst, S &src, uint16_t indexRow = 0, uint16_t indexCol = 0)
{
    static_assert((pto_stub_at<D, TileType::Left>() || pto_stub_at<D, TileType::Right>()) &&
                  pto_stub_at<S, TileType::Mat>(), "TEXTRACT: mat -> left / right");
    (void)dst; (void)src; (void)indexRow; (void)indexCol;
}

/* mad has no destination stride: it writes the accumulator as ceil16(m) rows per 16-column block,
   m = the left tile's valid rows (pto-isa TMatmul.hpp, MadAccStrideCompatible, which recent trees
   assert on the acc: ValidRow static and rounding up to Rows when Cols > 16). The stub also holds
   the left tile to it, since its valid rows are m. */
template <typename TileRes, typename TileLeft_>
constexpr bool pto_stub_mad_stride()
{
    return TileRes::Cols <= 16 ||
           (TileRes::ValidRow != DYNAMIC && (TileRes::ValidRow + 15) / 16 * 16 == TileRes::Rows &&
            TileLeft_::ValidRow != DYNAMIC && (TileLeft_::ValidRow + 15) / 16 * 16 == TileRes::Rows);
}

/* a2a3 CheckStaticMad: acc int32_t from int8_t, float from half, float or bfloat16_t */
template <typename C, typename A, typename B> constexpr bool pto_stub_mad_types()
{
    return std::is_same<A, B>::value &&
           ((std::is_same<C, int32_t>::value && std::is_same<A, int8_t>::value) ||
            (std::is_same<C, float>::value && (std::is_same<A, half>::value || std::is_same<A, float>::value ||
                                               std::is_same<A, bfloat16_t>::value)));
}

template <typename TileRes, typename TileLeft_, typename TileRight_>
void TMATMUL(TileRes &cMatrix, TileLeft_ &aMatrix, TileRight_ &bMatrix)
{
    static_assert(pto_stub_mad_types<typename TileRes::DType, typename TileLeft_::DType, typename TileRight_::DType>(),
                  "TMATMUL: acc int32_t <- int8_t, float <- half / float / bfloat16_t");
    static_assert(pto_stub_at<TileRes, TileType::Acc>() && pto_stub_at<TileLeft_, TileType::Left>() &&
                  pto_stub_at<TileRight_, TileType::Right>(), "TMATMUL(acc, left, right)");
    static_assert(pto_stub_mad_stride<TileRes, TileLeft_>(), "TMATMUL: mad writes ceil16(m) rows per block column");
    (void)cMatrix; (void)aMatrix; (void)bMatrix;
}

template <typename TileRes, typename TileLeft_, typename TileRight_>
void TMATMUL_ACC(TileRes &cOutMatrix, TileRes &cInMatrix, TileLeft_ &aMatrix, TileRight_ &bMatrix)
{
    static_assert(pto_stub_mad_types<typename TileRes::DType, typename TileLeft_::DType, typename TileRight_::DType>(),
                  "TMATMUL_ACC: acc int32_t <- int8_t, float <- half / float / bfloat16_t");
    static_assert(pto_stub_at<TileRes, TileType::Acc>() && pto_stub_at<TileLeft_, TileType::Left>() &&
                  pto_stub_at<TileRight_, TileType::Right>(), "TMATMUL_ACC(acc, acc, left, right)");
    static_assert(pto_stub_mad_stride<TileRes, TileLeft_>(), "TMATMUL_ACC: mad writes ceil16(m) rows per block column");
    (void)cOutMatrix; (void)cInMatrix; (void)aMatrix; (void)bMatrix;
}

/* cube <-> vector pipes (pto-isa include/pto/common/fifo.hpp, include/pto/npu/a2a3/TPush.hpp /
   TPop.hpp, docs/isa/TPUSH.md, TPOP.md, TFREE.md). TPipe's template is the real one; the checks
   below are what the a2a3 implementation needs of its arguments. Which core a call runs on is
   the section it is compiled in (-D__DAV_CUBE__ / -D__DAV_VEC__). */
enum TileSplitAxis : uint8_t { TILE_NO_SPLIT = 0, TILE_UP_DOWN = 1, TILE_LEFT_RIGHT = 2 };
enum Direction : uint8_t { UNDEFINED = 0, DIR_C2V = 1, DIR_V2C = 2, DIR_BOTH = DIR_C2V | DIR_V2C, DIR_V2C_CTRL = 4 };

/* The TPipe of hw-native-sys/pto-isa 1d87336, which pto writes; -DPTO_STUB_TPIPE_B361384 and
   -DPTO_STUB_TPIPE_SIX declare the heads of two trees that read its 5th and 6th arguments otherwise
   (b361384: <..., uint32_t CompatLocalSlotNumOrIsNoSplit = 0, uint32_t LocalSlotNum = 2, bool
   EN_UNIT_FLAG = false>; older: <..., uint32_t LocalSlotNum = 2, bool EN_UNIT_FLAG = false>), for
   isa_test to see the emitted check refuse them. */
#if defined(PTO_STUB_TPIPE_B361384)
#define PTO_STUB_TPIPE_HEAD uint32_t CompatLocalSlotNumOrIsNoSplit = 0, uint32_t LocalSlotNum_ = 2, bool EN_UNIT_FLAG = false
#define PTO_STUB_TPIPE_LOCAL (CompatLocalSlotNumOrIsNoSplit <= 1 ? LocalSlotNum_ : CompatLocalSlotNumOrIsNoSplit)
#define PTO_STUB_TPIPE_NOSPLIT (CompatLocalSlotNumOrIsNoSplit == 1)
#define PTO_STUB_TPIPE_SPEC uint32_t X, uint32_t L, bool U
#define PTO_STUB_TPIPE_ARGS X, L, U
#elif defined(PTO_STUB_TPIPE_SIX)
#define PTO_STUB_TPIPE_HEAD uint32_t LocalSlotNum_ = 2, bool EN_UNIT_FLAG = false
#define PTO_STUB_TPIPE_LOCAL LocalSlotNum_
#define PTO_STUB_TPIPE_NOSPLIT false
#define PTO_STUB_TPIPE_SPEC uint32_t L, bool U
#define PTO_STUB_TPIPE_ARGS L, U
#else
#define PTO_STUB_TPIPE_HEAD uint32_t LocalSlotNum_ = 2, bool IsNoSplit = false, bool EN_UNIT_FLAG = false
#define PTO_STUB_TPIPE_LOCAL LocalSlotNum_
#define PTO_STUB_TPIPE_NOSPLIT IsNoSplit
#define PTO_STUB_TPIPE_SPEC uint32_t L, bool X, bool U
#define PTO_STUB_TPIPE_ARGS L, X, U
#endif
template <uint8_t FlagID, uint8_t DirType, uint32_t SlotSize, uint32_t SlotNum, PTO_STUB_TPIPE_HEAD>
struct TPipe {
    static constexpr uint32_t LocalSlotNum = PTO_STUB_TPIPE_LOCAL;
#if defined(PTO_STUB_TPIPE_B361384)
    static constexpr bool IsNoSplit = PTO_STUB_TPIPE_NOSPLIT;
    static constexpr uint32_t EffectiveLocalSlotNum = LocalSlotNum;
#endif
    /* fifo.hpp's RingFIFO<SlotSize, SlotNum, LocalSlotNum>, of which pto reads LOCAL_SLOT_NUM */
    struct RingFiFo { static constexpr uint32_t SLOT_SIZE = SlotSize, SLOT_NUM = SlotNum, LOCAL_SLOT_NUM = LocalSlotNum; };
    static constexpr bool is_c2v = (DirType & 7) == DIR_C2V, is_v2c = (DirType & 7) == DIR_V2C,
                          is_both = (DirType & 7) == DIR_BOTH;
    static constexpr uint32_t slot_size = SlotSize;
    static constexpr bool no_split = PTO_STUB_TPIPE_NOSPLIT;
    static_assert(is_c2v || is_v2c || is_both, "TPipe: DIR_C2V, DIR_V2C or DIR_BOTH");
    static_assert(SlotNum >= 1 && LocalSlotNum >= 1 && LocalSlotNum <= SlotNum, "TPipe: 1 <= LocalSlotNum <= SlotNum");
    static_assert(SlotSize > 0 && SlotSize % 32 == 0, "TPipe: a slot is a whole number of 32-byte blocks");
    /* a one-way pipe uses flags FlagID and FlagID + 1, a both pipe FlagID..FlagID + 3; a2a3 has
       16 cross-core flags */
    static_assert(FlagID + (is_both ? 3 : 1) < 16, "TPipe: its cross-core flags past the hardware's 16");
    /* the producer's and consumer's entry offset, added to every slot address (a split pipe's
       AIV sets it to its lane's part: emit_isa.c, pto__isa_pipe_lane) */
    struct Side { int entryOffset = 0; void setEntryOffset(int offset) { entryOffset = offset; } };
    Side prod, cons;
    TPipe(__gm__ void *GM_SLOT_BUFFER, uint32_t C2V_CONSUMER_BUF, uint32_t V2C_CONSUMER_BUF)
    { (void)GM_SLOT_BUFFER; (void)C2V_CONSUMER_BUF; (void)V2C_CONSUMER_BUF; }
};

template <typename T> struct is_tpipe : std::false_type {};
template <uint8_t F, uint8_t D, uint32_t S, uint32_t N, PTO_STUB_TPIPE_SPEC>
struct is_tpipe<TPipe<F, D, S, N, PTO_STUB_TPIPE_ARGS>> : std::true_type {};

/* The bytes of the tile a core pushes or pops: the whole slot on the AIC, half of it on an AIV
   of a split pipe, the whole slot on an AIV of an unsplit one; the split agrees with the pipe's
   IsNoSplit. */
template <typename Pipe, typename Tile_, TileSplitAxis Split, bool Cube> constexpr bool pto_stub_pipe_tile()
{
    return Tile_::Rows * Tile_::Cols * sizeof(typename Tile_::DType) ==
               (Cube || Split == TILE_NO_SPLIT ? Pipe::slot_size : Pipe::slot_size / 2) &&
           (Split == TILE_NO_SPLIT) == Pipe::no_split && Tile_::ValidRow == Tile_::Rows &&
           Tile_::ValidCol == Tile_::Cols;
}

#if defined(__DAV_CUBE__)
constexpr bool pto_stub_cube = true;
#else
constexpr bool pto_stub_cube = false;
#endif

template <typename Pipe, typename TileProd, TileSplitAxis Split>
void TPUSH(Pipe &pipe, TileProd &tile)
{
    static_assert(is_tpipe<Pipe>::value && is_tile<TileProd>::value, "TPUSH<Pipe, Tile, Split>(pipe, tile)");
#if defined(__DAV_CUBE__)
    static_assert(TileProd::Loc == TileType::Acc && (Pipe::is_c2v || Pipe::is_both),
                  "TPUSH on the AIC: an acc tile into a C2V (or both) pipe");
#elif defined(__DAV_VEC__)
    static_assert(TileProd::Loc == TileType::Vec && (Pipe::is_v2c || Pipe::is_both),
                  "TPUSH on an AIV: a vec tile into a V2C (or both) pipe");
#endif
    static_assert(pto_stub_pipe_tile<Pipe, TileProd, Split, pto_stub_cube>(),
                  "TPUSH: the tile is the part of a slot this core sees (its split), of the slot's bytes");
    (void)pipe; (void)tile;
}

template <typename Pipe, typename TileCons, TileSplitAxis Split>
void TPOP(Pipe &pipe, TileCons &tile)
{
    static_assert(is_tpipe<Pipe>::value && is_tile<TileCons>::value, "TPOP<Pipe, Tile, Split>(pipe, tile)");
#if defined(__DAV_CUBE__)
    static_assert(TileCons::Loc == TileType::Mat && (Pipe::is_v2c || Pipe::is_both),
                  "TPOP on the AIC: a mat tile from a V2C (or both) pipe");
#elif defined(__DAV_VEC__)
    static_assert(TileCons::Loc == TileType::Vec && (Pipe::is_c2v || Pipe::is_both),
                  "TPOP on an AIV: a vec tile from a C2V (or both) pipe");
#endif
    static_assert(pto_stub_pipe_tile<Pipe, TileCons, Split, pto_stub_cube>(),
                  "TPOP: the tile is the part of a slot this core sees (its split), of the slot's bytes");
    (void)pipe; (void)tile;
}

/* the tile flow's TFREE: empty on a2a3 (TPOP has freed the slot) */
template <typename Pipe, TileSplitAxis Split>
void TFREE(Pipe &pipe)
{
    static_assert(is_tpipe<Pipe>::value, "TFREE<Pipe, Split>(pipe)");
    static_assert((Split == TILE_NO_SPLIT) == Pipe::no_split, "TFREE: the pipe's split");
    (void)pipe;
}

} /* namespace pto */

#endif
