# C declarations for core.py (Cython's augmenting .pxd): the per-op path's helpers are C
# functions (a C call from ``apply_op``, not a Python one; none is used outside this
# module), and the dispatch's flags and counts are C locals.  The .py stays the source
# of truth and runs the same without a compiler.
cimport cython

@cython.locals(requires=bint, general=bint, low=bint, scalar_kind=int)
cpdef object apply_op(object op, object inputs, object params=*)

@cython.locals(n=Py_ssize_t)
cdef object _record(object op, object inputs, object arrays, object arr_type, object params, object r, object out)

cdef object _new_node(object op)

cdef object _leaf_edge(object t)

cdef tuple _input_edge(object x)

cdef object _input_shape(object x, object a, object arr_type)

cdef object _layout(object shapes)

cdef object _save(object op, object inputs, object result, object raw, object needs)

cdef object _saved_tensor(object key, object t, bint is_output)

cdef object _released(object record)

cdef tuple saved_record(object name, object value, object counter, object version, object output_nr, object source)
