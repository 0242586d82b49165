#!/bin/sh
# Generated fuzz seeds: tests/fuzz/seeds.sh OUT VTA BITGEN TFLSEEDS
#
# Writes OUT/<target>/ from what the tree and the machine have, so that the
# seeds follow format changes: programs assembled by this build's vta, .vtam
# files it compiles, the ONNX models of Debian's libonnx-testdata (the ops the
# importer takes, and two it does not) and ../shared, tiny TFLite models (tflseeds.c), the
# shipped configurations, and the
# synthetic bitstreams of tests/boards/bitgen.h. Committed seeds live in
# tests/fuzz/corpus/<target>/. Quiet; missing inputs just give fewer seeds.
set -u
out=$1 vta=$2 bitgen=$3 tflseeds=$4
nodes=/usr/share/libonnx-testdata/data/node
shared=../shared
for t in isa asm program bitstream config onnx tflite darknet vtam; do
	rm -rf "$out/$t" && mkdir -p "$out/$t"
done

# config: the shipped configurations.
cp config/*.json "$out/config/"

# asm: the example; program: it assembled (an image) and a bare stream.
cp examples/*.s "$out/asm/"
"$vta" asm examples/gemm.s -o "$out/program/gemm.bin" 2>/dev/null
printf 'finish\n' > "$out/tmp-finish.s"
"$vta" asm "$out/tmp-finish.s" -o "$out/program/finish.bin" 2>/dev/null
rm -f "$out/tmp-finish.s"

# isa: one byte (the short buffer size of fuzz_isa) and the example's words.
if [ -f "$out/program/gemm.bin" ]; then
	n=$(wc -c < "$out/program/gemm.bin")
	{ printf '\027'; tail -c $(( (n / 16) * 16 > 176 ? 176 : (n / 16) * 16 )) "$out/program/gemm.bin"; } \
		> "$out/isa/gemm-words"
fi

# onnx: small node models of the ops the importer takes, and MNIST.
for d in $nodes/test_conv_with_strides_padding $nodes/test_basic_conv_with_padding \
	 $nodes/test_gemm_default_single_elem_vector_bias $nodes/test_matmul_2d $nodes/test_add \
	 $nodes/test_relu $nodes/test_clip $nodes/test_maxpool_2d_pads $nodes/test_averagepool_2d_pads \
	 $nodes/test_globalaveragepool $nodes/test_reshape_reduced_dims $nodes/test_flatten_axis1 \
	 $nodes/test_softmax_axis_1 $nodes/test_batchnorm_epsilon $nodes/test_concat_2d_axis_0 \
	 $nodes/test_sigmoid $nodes/test_hardsigmoid $nodes/test_hardswish $nodes/test_mul_bcast \
	 $nodes/test_transpose_all_permutations_1 $nodes/test_resize_upsample_scales_linear \
	 $nodes/test_resize_downsample_sizes_nearest $nodes/test_split_equal_parts_1d $nodes/test_squeeze \
	 $nodes/test_unsqueeze_axis_0 $nodes/test_depthtospace_crd_mode $nodes/test_spacetodepth \
	 $nodes/test_convtranspose_pads $nodes/test_reduce_l2_keep_dims_example $nodes/test_elu \
	 $nodes/test_logsoftmax_axis_1 $nodes/test_max_example $nodes/test_pow $nodes/test_quantizelinear \
	 $nodes/test_dequantizelinear_axis $nodes/test_qlinearconv $nodes/test_cast_FLOAT_to_FLOAT16 \
	 $nodes/test_expand_dim_changed $nodes/test_where_example $nodes/test_constantofshape_float_ones \
	 $nodes/test_gather_0 $nodes/test_conv_with_autopad_same; do
	[ -f "$d/model.onnx" ] && cp "$d/model.onnx" "$out/onnx/$(basename "$d").onnx"
done
[ -f $shared/models/mnist-8.onnx ] && cp $shared/models/mnist-8.onnx "$out/onnx/"
# and ops it does not take: the census of unsupported types that runs first
for d in $nodes/test_lstm_defaults $nodes/test_resize_upsample_scales_nearest; do
	[ -f "$d/model.onnx" ] && cp "$d/model.onnx" "$out/onnx/$(basename "$d").onnx"
done

# tflite: tiny models of every operator the importer takes (tflseeds.c). The
# ResNet-8 files of ../shared (100-400 KB) are left out: inputs that large
# cut the rate from about 10000 to 150 executions a second.
[ -x "$tflseeds" ] && "$tflseeds" "$out/tflite" 2>/dev/null

# vtam: compiled by this build, with and without VTA kernels.
for f in "$out"/onnx/*.onnx; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .onnx)
	if [ "$b" = mnist-8 ]; then
		[ -f $shared/data/mnist-10k-images-idx3-ubyte ] || continue
		"$vta" compile "$f" -o "$out/vtam/$b.vtam" --calib=$shared/data/mnist-10k-images-idx3-ubyte \
			--calib-count=10 >/dev/null 2>&1
	else
		"$vta" compile "$f" -o "$out/vtam/$b.vtam" --calib=synthetic >/dev/null 2>&1
	fi
done
rm -f "$out"/vtam/*.tmp

# bitstream: a synthetic .bit and .bin for every board.
[ -x "$bitgen" ] && (cd "$out/bitstream" && "$bitgen" >/dev/null 2>&1)
exit 0
