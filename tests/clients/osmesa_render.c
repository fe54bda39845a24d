/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* osmesa_render.c - a client of Mesa's llvmpipe (clients/osmesa_test.py).
 *
 *   osmesa_render FRAMES
 *
 * Renders FRAMES frames off screen with OSMesa: each compiles and links a
 * GLSL program (llvmpipe turns it into LLVM IR through libLLVM's C API,
 * gallivm, and JIT-compiles it), draws two triangles with it, reads the
 * pixels back and deletes the program. Prints a checksum of the pixels,
 * which must not depend on whether ownsan watched the driver. */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/osmesa.h>
#include <stdio.h>
#include <stdlib.h>
/* A loop and a uniform in the fragment shader: real code for gallivm. */
static const char *vs =
    "#version 120\nattribute vec2 p; varying vec2 v; uniform float k;\n"
    "void main(){ v = p * k; gl_Position = vec4(p, 0.0, 1.0); }\n";
static const char *fs =
    "#version 120\nvarying vec2 v; uniform float k;\n"
    "void main(){ float s = 0.0; for (int i = 0; i < 8; ++i) s += sin(v.x * "
    "float(i)) * cos(v.y + k);\n"
    " gl_FragColor = vec4(fract(s), v.x * v.y, k * 0.25, 1.0); }\n";
static GLuint compile(GLenum kind, const char *src) {
  GLuint s = glCreateShader(kind);
  glShaderSource(s, 1, &src, NULL);
  glCompileShader(s);
  GLint ok;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024];
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    fprintf(stderr, "shader: %s\n", log);
    exit(1);
  }
  return s;
}
int main(int argc, char **argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 20, W = 128, H = 128;
  OSMesaContext ctx = OSMesaCreateContextExt(OSMESA_RGBA, 24, 0, 0, NULL);
  unsigned char *buf = malloc(W * H * 4);
  if (!ctx || !OSMesaMakeCurrent(ctx, buf, GL_UNSIGNED_BYTE, W, H)) {
    fprintf(stderr, "no context\n");
    return 1;
  }
  unsigned long sum = 0;
  for (int f = 0; f < frames; ++f) {
    GLuint prog = glCreateProgram();
    GLuint a = compile(GL_VERTEX_SHADER, vs),
           b = compile(GL_FRAGMENT_SHADER, fs);
    glAttachShader(prog, a);
    glAttachShader(prog, b);
    glBindAttribLocation(prog, 0, "p");
    glLinkProgram(prog);
    glUseProgram(prog);
    glUniform1f(glGetUniformLocation(prog, "k"), 0.5f + f * 0.1f);
    glClearColor(0.1f * (f % 10), 0.2f, 0.3f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    GLfloat pts[] = {-1, -1, 1, -1, 0, 1, -0.5f, 0.5f, 0.5f, 0.5f, 0, -0.8f};
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pts);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    glFinish();
    for (int i = 0; i < W * H * 4; i += 97)
      sum += buf[i];
    glDeleteShader(a);
    glDeleteShader(b);
    glDeleteProgram(prog);
  }
  printf("frames=%d checksum=%lu\n", frames, sum);
  OSMesaDestroyContext(ctx);
  free(buf);
  return 0;
}
