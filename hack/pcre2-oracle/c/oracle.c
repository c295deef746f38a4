/* Reads patterns, one per line, with \n and \\ escaped as in Go's strconv (only \\ and \n and \xHH);
   prints "ok" or "err <offset> <message>" per line. Compiles with PCRE2_ANCHORED, as Kong's
   ngx.re.find(.., "aj") does. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcre2.h"
static int hex(int c){ if(c>='0'&&c<='9')return c-'0'; if(c>='a'&&c<='f')return c-'a'+10; if(c>='A'&&c<='F')return c-'A'+10; return -1;}
int main(void){
  size_t cap = 1<<22; char *line = malloc(cap); unsigned char *pat = malloc(cap);
  while (fgets(line, cap, stdin)) {
    size_t n = strlen(line); if (n && line[n-1]=='\n') line[--n]=0;
    size_t m = 0;
    for (size_t i=0;i<n;i++){
      if (line[i]=='\\' && i+1<n){
        char c=line[i+1];
        if(c=='\\'){pat[m++]='\\';i++;continue;}
        if(c=='n'){pat[m++]='\n';i++;continue;}
        if(c=='x'&&i+3<n){pat[m++]=(unsigned char)(hex(line[i+2])*16+hex(line[i+3]));i+=3;continue;}
      }
      pat[m++]=(unsigned char)line[i];
    }
    int ec; PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile(pat, m, PCRE2_ANCHORED, &ec, &eo, NULL);
    if (re) { printf("ok\n"); pcre2_code_free(re); }
    else { unsigned char buf[256]; pcre2_get_error_message(ec, buf, sizeof buf); printf("err %d %zu %s\n", ec, (size_t)eo, buf); }
    fflush(stdout);
  }
  return 0;
}
