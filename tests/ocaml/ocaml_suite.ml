(* ocaml_suite.ml - a small test suite over Debian's OCaml LLVM bindings
   (libllvm-19-ocaml-dev), some tests with seeded ownership bugs, run under
   ownsan by tests/ocaml/check_ocaml.py.

     ocaml_suite clean      the clean tests only (safe without ownsan)
     ocaml_suite all        every test, seeded ones included (under ownsan
                            with halt_on_error=0: the misused calls are
                            skipped, so nothing touches freed memory)
     ocaml_suite ONE-NAME   one test
     ocaml_suite keep_a_builder
                            not a test: a builder kept reachable until exit
                            (its finalizer never runs: a leak)

   Like a test runner, it names the running test in OWNSAN_TEST_NAME
   ("ocaml/<name>") so that reports say which test they come from. The
   lines that misuse and free carry (* SEEDED-USE: <name> *) and
   (* SEEDED-FREE: <name> *) markers, which the driver looks up. *)

let i32 ctx = Llvm.i32_type ctx

(* A module with i32 add(i32, i32) built with a builder. *)
let build_add_module ctx name =
  let m = Llvm.create_module ctx name in
  let fty = Llvm.function_type (i32 ctx) [| i32 ctx; i32 ctx |] in
  let f = Llvm.define_function "add" fty m in
  let b = Llvm.builder_at_end ctx (Llvm.entry_block f) in
  let p = Llvm.params f in
  let sum = Llvm.build_add p.(0) p.(1) "sum" b in
  ignore (Llvm.build_ret sum b);
  (m, f)

(* Clean: build, verify, print, dispose. *)
let clean_build_and_print () =
  let ctx = Llvm.create_context () in
  let m, f = build_add_module ctx "clean" in
  (match Llvm_analysis.verify_module m with
   | None -> print_endline "clean_build_and_print: module verifies"
   | Some msg -> print_endline ("clean_build_and_print: invalid: " ^ msg));
  Printf.printf "clean_build_and_print: %s has %d block(s)\n"
    (Llvm.value_name f) (Array.length (Llvm.basic_blocks f));
  print_string (Llvm.string_of_llmodule m);
  Llvm.dispose_module m;
  Llvm.dispose_context ctx

(* Clean: the bindings give builders a GC finalizer (LLVMDisposeBuilder).
   Here it runs after the builder's module and context were disposed,
   which is harmless: an IRBuilder's destructor touches neither. *)
let[@inline never] build_ret_7 ctx m =
  let fty = Llvm.function_type (i32 ctx) [||] in
  let f = Llvm.define_function "f" fty m in
  let b = Llvm.builder_at_end ctx (Llvm.entry_block f) in
  ignore (Llvm.build_ret (Llvm.const_int (i32 ctx) 7) b)

let clean_builder_finalized_after_context () =
  let ctx = Llvm.create_context () in
  let m = Llvm.create_module ctx "finalized" in
  build_ret_7 ctx m;
  Llvm.dispose_module m;
  Llvm.dispose_context ctx;
  (* The builder is unreachable: its finalizer runs now. *)
  Gc.full_major ();
  print_endline "clean_builder_finalized_after_context: done"

(* A binding-style wrapper that disposes its module when collected. *)
type owned_module = { m : Llvm.llmodule }

let finalized = ref 0

let dispose_owned w =
  incr finalized;
  Llvm.dispose_module w.m (* SEEDED-USE: finalizer-after-context *)

let[@inline never] owned ctx name =
  let w = { m = Llvm.create_module ctx name } in
  Gc.finalise dispose_owned w;
  w

let[@inline never] print_owned ctx =
  let w = owned ctx "owned" in
  Printf.printf "clean_finalizer_before_context: %s\n"
    (Llvm.string_of_llmodule w.m |> String.trim)

(* Clean: the finalizer disposes the module while its context lives. *)
let clean_finalizer_before_context () =
  let ctx = Llvm.create_context () in
  print_owned ctx;
  Gc.full_major ();
  Printf.printf "clean_finalizer_before_context: %d finalizer(s) ran\n"
    !finalized;
  Llvm.dispose_context ctx

(* Seeded: a function used after its module was disposed. *)
let seeded_use_after_module_dispose () =
  let ctx = Llvm.global_context () in
  let m, f = build_add_module ctx "victim" in
  Llvm.dispose_module m; (* SEEDED-FREE: use-after-module-dispose *)
  ignore (Llvm.linkage f) (* SEEDED-USE: use-after-module-dispose *)

(* Seeded: the same misuse from another function, through the same C stub
   of the bindings: a problem of its own. *)
let seeded_linkage_after_module_dispose () =
  let m, f = build_add_module (Llvm.global_context ()) "victim2" in
  Llvm.dispose_module m; (* SEEDED-FREE: linkage-after-module-dispose *)
  ignore (Llvm.linkage f) (* SEEDED-USE: linkage-after-module-dispose *)

(* Seeded: a module disposed twice. *)
let seeded_module_disposed_twice () =
  let m = Llvm.create_module (Llvm.global_context ()) "twice" in
  Llvm.dispose_module m; (* SEEDED-FREE: module-disposed-twice *)
  Llvm.dispose_module m (* SEEDED-USE: module-disposed-twice *)

(* Seeded: a type of a disposed context. *)
let seeded_type_after_context_dispose () =
  let ctx = Llvm.create_context () in
  let t = Llvm.i64_type ctx in
  Llvm.dispose_context ctx; (* SEEDED-FREE: type-after-context-dispose *)
  ignore (Llvm.classify_type t) (* SEEDED-USE: type-after-context-dispose *)

(* Seeded: the GC finalizer disposes a module after its context was
   disposed, which freed the module already (LLVMContextDispose deletes the
   modules the context still owns). *)
let seeded_finalizer_after_context () =
  let ctx = Llvm.create_context () in
  ignore (Sys.opaque_identity (owned ctx "orphan"));
  Llvm.dispose_context ctx; (* SEEDED-FREE: finalizer-after-context *)
  Gc.full_major ()

let tests = [
  ("clean_build_and_print", false, clean_build_and_print);
  ("use-after-module-dispose", true, seeded_use_after_module_dispose);
  ("clean_builder_finalized_after_context", false,
   clean_builder_finalized_after_context);
  ("module-disposed-twice", true, seeded_module_disposed_twice);
  ("clean_finalizer_before_context", false, clean_finalizer_before_context);
  ("type-after-context-dispose", true, seeded_type_after_context_dispose);
  ("finalizer-after-context", true, seeded_finalizer_after_context);
  ("linkage-after-module-dispose", true,
   seeded_linkage_after_module_dispose);
]

(* Not a test: keeps a builder reachable until exit, so that its finalizer
   never runs (report_leaks=1 must list it). *)
let kept = ref []

let keep_a_builder () =
  let b = Llvm.builder (Llvm.global_context ()) in
  kept := [ b ];
  print_endline "keep_a_builder: done"

let run (name, _, fn) =
  Unix.putenv "OWNSAN_TEST_NAME" ("ocaml/" ^ name);
  fn ();
  Printf.printf "%s: ok\n%!" name

let () =
  let which = if Array.length Sys.argv > 1 then Sys.argv.(1) else "clean" in
  if which = "keep_a_builder" then (keep_a_builder (); exit 0);
  let chosen =
    List.filter
      (fun (name, seeded, _) ->
        which = "all" || (which = "clean" && not seeded) || which = name)
      tests
  in
  if chosen = [] then (prerr_endline ("ocaml_suite: no test " ^ which); exit 2);
  List.iter run chosen;
  Unix.putenv "OWNSAN_TEST_NAME" "";
  (* The builders of the tests are unreachable now: finalize them. *)
  Gc.full_major ();
  Printf.printf "ocaml_suite: %d test(s) ran\n" (List.length chosen)
